package pillar.sandbox;

import static org.assertj.core.api.Assertions.assertThat;
import static pillar.sandbox.Volumes.MIB;
import static pillar.sandbox.Volumes.assertCode;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import io.grpc.Status.Code;
import org.junit.jupiter.api.DynamicTest;
import pillar.api.csi.v1.ControllerGetCapabilitiesRequest;
import pillar.api.csi.v1.ControllerServiceCapability;
import pillar.api.csi.v1.ListVolumesRequest;
import pillar.api.csi.v1.ListVolumesResponse;
import pillar.api.csi.v1.Volume;
import pillar.api.csi.v1.VolumeCapability;

/**
 * csi-sanity's ListVolumes cases (kubernetes-csi/csi-test pkg/sanity/controller.go, Describe
 * "ListVolumes"), in Java, against the running controller socket with real LVM thin volumes and
 * their nvmet exports; each check names the case it mirrors. Every volume made here is deleted,
 * and the kernel objects are as before.
 */
final class ListVolumesConformance {
    private static final long SIZE = 64 * MIB;

    private final SuiteBed suite;
    private final CsiController controller;
    private final KubeletNode node;
    private final VolumeCapability rwo = Capabilities.readWriteOnce(VolumeMode.EXT4, "ext4");
    private final List<DynamicTest> checks = new ArrayList<>();

    ListVolumesConformance(SuiteBed suite) {
        this.suite = suite;
        this.controller = suite.bed.controller();
        this.node = suite.bed.node();
    }

    List<DynamicTest> checks() {
        KernelObjects before = suite.snapshot();
        check("ControllerGetCapabilities: LIST_VOLUMES and LIST_VOLUMES_PUBLISHED_NODES", () ->
                assertThat(controller.stub().controllerGetCapabilities(ControllerGetCapabilitiesRequest.getDefaultInstance())
                        .getCapabilitiesList()).extracting(c -> c.getRpc().getType()).contains(
                        ControllerServiceCapability.RPC.Type.LIST_VOLUMES,
                        ControllerServiceCapability.RPC.Type.LIST_VOLUMES_PUBLISHED_NODES));
        check("sanity ListVolumes \"should return appropriate values (no optional values added)\"", () -> {
            for (ListVolumesResponse.Entry entry : list(0, "").getEntriesList()) {
                assertThat(entry.getVolume().getVolumeId()).isNotEmpty();
            }
        });
        check("sanity ListVolumes \"should fail when an invalid starting_token is passed\": ABORTED; max_entries -1 INVALID_ARGUMENT",
                () -> {
                    assertCode(Code.ABORTED, () -> list(0, "invalid-token"));
                    assertCode(Code.INVALID_ARGUMENT, () -> list(-1, ""));
                });
        check("sanity ListVolumes \"check the presence of new volumes and absence of deleted ones in the volume list\","
                + " with the node it is published to", () -> {
            int total = list(0, "").getEntriesCount();
            Volume volume = create();
            ListVolumesResponse listed = list(0, "");
            assertThat(listed.getEntriesCount()).isEqualTo(total + 1);
            ListVolumesResponse.Entry entry = entry(listed, volume.getVolumeId());
            assertThat(entry.getVolume()).as("as CreateVolume returned it").isEqualTo(volume);
            assertThat(entry.getStatus().getPublishedNodeIdsList()).isEmpty();

            controller.publish(volume, node.nodeId(), rwo, false);
            assertThat(entry(list(0, ""), volume.getVolumeId()).getStatus().getPublishedNodeIdsList()).containsExactly(node.nodeId());
            controller.unpublish(volume.getVolumeId(), node.nodeId());
            assertThat(entry(list(0, ""), volume.getVolumeId()).getStatus().getPublishedNodeIdsList()).isEmpty();

            controller.delete(volume.getVolumeId());
            assertThat(list(0, "").getEntriesCount()).isEqualTo(total);
        });
        check("sanity ListVolumes \"pagination should detect volumes added between pages and accept tokens when the last"
                + " volume from a page is deleted\"", () -> {
            Set<String> existing = new TreeSet<>();
            list(0, "").getEntriesList().forEach(e -> existing.add(e.getVolume().getVolumeId()));
            int min = Math.max(3, existing.size());
            while (existing.size() < min) {
                existing.add(create().getVolumeId());
            }
            ListVolumesResponse first = list(2, "");
            assertThat(first.getEntriesCount()).isEqualTo(2);
            assertThat(first.getNextToken()).isNotEmpty();
            for (ListVolumesResponse.Entry listed : first.getEntriesList()) {
                assertThat(existing.remove(listed.getVolume().getVolumeId())).isTrue();
                controller.delete(listed.getVolume().getVolumeId());
            }
            existing.add(create().getVolumeId());

            ListVolumesResponse rest = list(0, first.getNextToken());
            assertThat(rest.getEntriesCount()).isLessThanOrEqualTo(min - 2 + 1);
            Set<String> seen = new TreeSet<>();
            for (ListVolumesResponse.Entry listed : rest.getEntriesList()) {
                assertThat(existing).as("no deleted volume").contains(listed.getVolume().getVolumeId());
                assertThat(seen.add(listed.getVolume().getVolumeId())).as("no duplicate").isTrue();
            }
            existing.forEach(controller::delete);
            assertThat(suite.snapshot().changesSince(before)).as("left behind").isEmpty();
        });
        return checks;
    }

    private void check(String name, org.junit.jupiter.api.function.Executable body) {
        checks.add(DynamicTest.dynamicTest(name, body));
    }

    private Volume create() {
        String name = Volumes.pvName();
        Map<String, String> parameters = Lifecycle.provisionerParameters(suite.parameters(Backend.LVM_THIN, "ext4"), name);
        return controller.create(name, SIZE, rwo, parameters);
    }

    private ListVolumesResponse list(int max, String token) {
        return controller.stub().listVolumes(ListVolumesRequest.newBuilder().setMaxEntries(max).setStartingToken(token).build());
    }

    private static ListVolumesResponse.Entry entry(ListVolumesResponse page, String id) {
        return page.getEntriesList().stream().filter(e -> e.getVolume().getVolumeId().equals(id)).findFirst()
                .orElseThrow(() -> new AssertionError(id + " is not listed"));
    }
}
