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
import pillar.api.csi.v1.CreateSnapshotRequest;
import pillar.api.csi.v1.DeleteSnapshotRequest;
import pillar.api.csi.v1.ListSnapshotsRequest;
import pillar.api.csi.v1.ListSnapshotsResponse;
import pillar.api.csi.v1.Snapshot;
import pillar.api.csi.v1.Volume;
import pillar.api.csi.v1.VolumeCapability;

/**
 * csi-sanity's snapshot cases (kubernetes-csi/csi-test pkg/sanity/controller.go, Describe
 * "CreateSnapshot", "DeleteSnapshot", "ListSnapshots", and the CreateVolume cases with a content
 * source), in Java, against the running controller socket with real LVM thin volumes and their thin
 * snapshots; each check names the case it mirrors. Everything made here is deleted, and the kernel
 * objects are as before.
 */
final class SnapshotConformance {
    private static final long SIZE = 64 * MIB;

    private final SuiteBed suite;
    private final CsiController controller;
    private final VolumeCapability rwo = Capabilities.readWriteOnce(VolumeMode.EXT4, "ext4");
    private final List<DynamicTest> checks = new ArrayList<>();

    SnapshotConformance(SuiteBed suite) {
        this.suite = suite;
        this.controller = suite.bed.controller();
    }

    List<DynamicTest> checks() {
        KernelObjects before = suite.snapshot();
        check("ControllerGetCapabilities: CREATE_DELETE_SNAPSHOT, LIST_SNAPSHOTS and CLONE_VOLUME", () ->
                assertThat(controller.stub().controllerGetCapabilities(ControllerGetCapabilitiesRequest.getDefaultInstance())
                        .getCapabilitiesList()).extracting(c -> c.getRpc().getType()).contains(
                        ControllerServiceCapability.RPC.Type.CREATE_DELETE_SNAPSHOT,
                        ControllerServiceCapability.RPC.Type.LIST_SNAPSHOTS, ControllerServiceCapability.RPC.Type.CLONE_VOLUME));
        check("sanity CreateSnapshot \"should fail when no name is provided\" and \"should fail when no source volume id is"
                + " provided\": INVALID_ARGUMENT", () -> {
                    assertCode(Code.INVALID_ARGUMENT, () -> controller.stub().createSnapshot(CreateSnapshotRequest.newBuilder()
                            .setSourceVolumeId("pvc-any").build()));
                    assertCode(Code.INVALID_ARGUMENT, () -> controller.stub().createSnapshot(CreateSnapshotRequest.newBuilder()
                            .setName("snapshot-any").build()));
                });
        check("sanity CreateSnapshot \"should succeed when requesting to create a snapshot with already existing name and"
                + " same source volume ID\", \"should fail ... different source volume ID\": ALREADY_EXISTS", () -> {
                    Volume a = create();
                    Volume b = create();
                    String name = "snapshot-" + Volumes.pvName();
                    Snapshot first = controller.snapshot(name, a.getVolumeId());
                    assertThat(first.getReadyToUse()).isTrue();
                    assertThat(first.getSourceVolumeId()).isEqualTo(a.getVolumeId());
                    assertThat(first.getSizeBytes()).isEqualTo(a.getCapacityBytes());
                    assertThat(first.hasCreationTime()).isTrue();
                    assertThat(controller.snapshot(name, a.getVolumeId())).isEqualTo(first);
                    assertCode(Code.ALREADY_EXISTS, () -> controller.snapshot(name, b.getVolumeId()));
                    controller.deleteSnapshot(first.getSnapshotId());
                    controller.delete(a.getVolumeId());
                    controller.delete(b.getVolumeId());
                });
        check("sanity CreateSnapshot \"should succeed when creating snapshot with maximum-length name\" (128 characters)", () -> {
            Volume a = create();
            Snapshot s = controller.snapshot("s".repeat(128), a.getVolumeId());
            assertThat(s.getSnapshotId()).isNotEmpty();
            controller.deleteSnapshot(s.getSnapshotId());
            controller.delete(a.getVolumeId());
        });
        check("sanity CreateSnapshot of a volume that does not exist: NOT_FOUND", () ->
                assertCode(Code.NOT_FOUND, () -> controller.snapshot("snapshot-" + Volumes.pvName(), "pvc-does-not-exist")));
        check("sanity DeleteSnapshot \"should fail when no snapshot id is provided\": INVALID_ARGUMENT; \"should succeed when"
                + " an invalid snapshot id is used\"", () -> {
                    assertCode(Code.INVALID_ARGUMENT, () -> controller.stub().deleteSnapshot(DeleteSnapshotRequest.getDefaultInstance()));
                    controller.deleteSnapshot("ps-does-not-exist");
                    controller.deleteSnapshot("not a snapshot id at all");
                });
        check("sanity ListSnapshots \"should return snapshots that match the specified snapshot id\", \"... source volume id\","
                + " \"should return empty when the specified snapshot id/source volume id does not exist\"", () -> {
                    Volume a = create();
                    Volume b = create();
                    Snapshot sa = controller.snapshot("snapshot-" + Volumes.pvName(), a.getVolumeId());
                    Snapshot sb = controller.snapshot("snapshot-" + Volumes.pvName(), b.getVolumeId());
                    assertThat(list(ListSnapshotsRequest.newBuilder().setSnapshotId(sa.getSnapshotId())))
                            .extracting(Snapshot::getSnapshotId).containsExactly(sa.getSnapshotId());
                    assertThat(list(ListSnapshotsRequest.newBuilder().setSourceVolumeId(b.getVolumeId())))
                            .extracting(Snapshot::getSnapshotId).containsExactly(sb.getSnapshotId());
                    assertThat(list(ListSnapshotsRequest.newBuilder().setSnapshotId("ps-does-not-exist"))).isEmpty();
                    assertThat(list(ListSnapshotsRequest.newBuilder().setSourceVolumeId("pvc-does-not-exist"))).isEmpty();
                    assertThat(list(ListSnapshotsRequest.newBuilder())).as("\"should return appropriate values\"")
                            .contains(sa, sb).allSatisfy(s -> assertThat(s.getReadyToUse()).isTrue());
                    controller.deleteSnapshot(sa.getSnapshotId());
                    controller.deleteSnapshot(sb.getSnapshotId());
                    assertThat(list(ListSnapshotsRequest.newBuilder().setSnapshotId(sa.getSnapshotId()))).isEmpty();
                    controller.delete(a.getVolumeId());
                    controller.delete(b.getVolumeId());
                });
        check("sanity ListSnapshots \"should fail when an invalid starting_token is passed\": ABORTED; \"pagination\" with"
                + " max_entries", () -> {
                    assertCode(Code.ABORTED, () -> controller.stub().listSnapshots(ListSnapshotsRequest.newBuilder()
                            .setStartingToken("invalid-token").build()));
                    Volume a = create();
                    List<Snapshot> made = new ArrayList<>();
                    for (int i = 0; i < 3; i++) {
                        made.add(controller.snapshot("snapshot-" + Volumes.pvName(), a.getVolumeId()));
                    }
                    Set<String> seen = new TreeSet<>();
                    String token = "";
                    int pages = 0;
                    do {
                        ListSnapshotsResponse page = controller.stub().listSnapshots(ListSnapshotsRequest.newBuilder()
                                .setSourceVolumeId(a.getVolumeId()).setMaxEntries(2).setStartingToken(token).build());
                        assertThat(page.getEntriesCount()).isLessThanOrEqualTo(2);
                        page.getEntriesList().forEach(e -> assertThat(seen.add(e.getSnapshot().getSnapshotId())).isTrue());
                        token = page.getNextToken();
                        pages++;
                    } while (!token.isEmpty());
                    assertThat(pages).isEqualTo(2);
                    assertThat(seen).containsExactlyInAnyOrderElementsOf(made.stream().map(Snapshot::getSnapshotId).toList());
                    made.forEach(s -> controller.deleteSnapshot(s.getSnapshotId()));
                    controller.delete(a.getVolumeId());
                });
        check("sanity CreateVolume \"should create volume from an existing source snapshot\" and \"... source volume\";"
                + " \"should fail when the volume source snapshot/volume is not found\": NOT_FOUND", () -> {
                    Volume a = create();
                    Snapshot s = controller.snapshot("snapshot-" + Volumes.pvName(), a.getVolumeId());
                    String restoreName = Volumes.pvName();
                    Volume restored = controller.createFrom(restoreName, SIZE, rwo, parameters(restoreName),
                            CsiController.fromSnapshot(s.getSnapshotId()));
                    assertThat(restored.getContentSource().getSnapshot().getSnapshotId()).isEqualTo(s.getSnapshotId());
                    String cloneName = Volumes.pvName();
                    Volume clone = controller.createFrom(cloneName, SIZE, rwo, parameters(cloneName),
                            CsiController.fromVolume(a.getVolumeId()));
                    assertThat(clone.getContentSource().getVolume().getVolumeId()).isEqualTo(a.getVolumeId());
                    assertCode(Code.OUT_OF_RANGE, () -> controller.createFrom(Volumes.pvName(), SIZE / 2, rwo,
                            parameters("pvc-small"), CsiController.fromSnapshot(s.getSnapshotId())));
                    String missing = Volumes.pvName();
                    assertCode(Code.NOT_FOUND, () -> controller.createFrom(missing, SIZE, rwo, parameters(missing),
                            CsiController.fromSnapshot("ps-does-not-exist")));
                    assertCode(Code.NOT_FOUND, () -> controller.createFrom(missing, SIZE, rwo, parameters(missing),
                            CsiController.fromVolume("pvc-does-not-exist")));
                    controller.deleteSnapshot(s.getSnapshotId());
                    controller.delete(a.getVolumeId());
                    controller.delete(restored.getVolumeId());
                    controller.delete(clone.getVolumeId());
                    assertThat(suite.snapshot().changesSince(before)).as("left behind").isEmpty();
                });
        return checks;
    }

    private void check(String name, org.junit.jupiter.api.function.Executable body) {
        checks.add(DynamicTest.dynamicTest(name, body));
    }

    private Map<String, String> parameters(String name) {
        return Lifecycle.provisionerParameters(suite.parameters(Backend.LVM_THIN, "ext4"), name);
    }

    private Volume create() {
        String name = Volumes.pvName();
        return controller.create(name, SIZE, rwo, parameters(name));
    }

    private List<Snapshot> list(ListSnapshotsRequest.Builder request) {
        return controller.stub().listSnapshots(request.build()).getEntriesList().stream()
                .map(ListSnapshotsResponse.Entry::getSnapshot).toList();
    }
}
