package pillar.controller.csi.adoption;

import static org.assertj.core.api.Assertions.assertThat;
import static pillar.controller.csi.CsiAssertions.assertCode;
import static pillar.controller.csi.CsiHarness.GIB;
import static pillar.controller.csi.Requests.NODE_A;

import java.util.Map;

import io.grpc.Status;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import pillar.api.csi.v1.VolumeCapability;
import pillar.controller.crd.PillarVolumeState;
import pillar.controller.crd.StorageClassParameters;
import pillar.controller.crd.VolumePhase;
import pillar.controller.csi.CsiHarness;
import pillar.controller.csi.Requests;

/**
 * What an adoption refuses, with the CSI code each: attributes and IDs an operator must correct
 * (INVALID_ARGUMENT, nothing written, the agent not asked), the agent's refusals (FAILED_PRECONDITION
 * or NOT_FOUND naming the volume and store), and that a retry once the cause is fixed adopts: nothing
 * a refusal leaves behind blocks it, nor is an operator's volume ever destroyed for it.
 */
class AdoptionRefusalsIT {
    private static final String VOLUME = "data-1";
    private static final VolumeCapability RWO = Requests.rwo();

    @RegisterExtension
    final CsiHarness harness = CsiHarness.withFakeAgent();

    private void publish(String volumeId, Map<String, String> attributes) {
        harness.csi().controllerPublishVolume(Requests.publish(volumeId, NODE_A, RWO, attributes));
    }

    private void assertNothingWrittenNorAsked() {
        assertThat(harness.states()).isEmpty();
        assertThat(harness.fakeAgents().calls()).noneMatch(c -> c.startsWith("AdoptVolume") || c.startsWith("CreateVolume"));
        assertThat(harness.fakeAgent().owns(VOLUME)).isFalse();
    }

    @Test
    void withoutTheAdoptAttributeAVolumeWithoutStateIsNotFoundAsEver() {
        harness.fakeAgent().existingVolume(VOLUME, "fast", GIB);

        assertCode(Status.Code.NOT_FOUND, () -> publish(VOLUME, Requests.parameters()));
        assertCode(Status.Code.NOT_FOUND, () -> publish(VOLUME, Map.of()));
        assertCode(Status.Code.NOT_FOUND, () -> publish("Data_1", Requests.parameters()));
        assertNothingWrittenNorAsked();
    }

    @Test
    void attributesAnOperatorMustCorrectAreInvalidArgumentsAndWriteNothing() {
        harness.fakeAgent().existingVolume(VOLUME, "fast", GIB);

        assertThat(assertCode(Status.Code.INVALID_ARGUMENT, () -> publish(VOLUME,
                Requests.adoption(StorageClassParameters.ADOPT, "yes")))).contains(StorageClassParameters.ADOPT, "yes");
        Map<String, String> noStore = new java.util.TreeMap<>(Requests.adoption());
        noStore.remove(StorageClassParameters.STORE);
        assertThat(assertCode(Status.Code.INVALID_ARGUMENT, () -> publish(VOLUME, noStore))).contains(StorageClassParameters.STORE);
        Map<String, String> noProtocol = new java.util.TreeMap<>(Requests.adoption());
        noProtocol.remove(StorageClassParameters.PROTOCOL);
        assertThat(assertCode(Status.Code.INVALID_ARGUMENT, () -> publish(VOLUME, noProtocol))).contains(StorageClassParameters.PROTOCOL);
        assertThat(assertCode(Status.Code.INVALID_ARGUMENT, () -> publish(VOLUME,
                Requests.adoption(StorageClassParameters.STORE, "slow")))).contains("no PillarStore slow");
        assertThat(assertCode(Status.Code.INVALID_ARGUMENT, () -> publish(VOLUME,
                Requests.adoption(StorageClassParameters.PROTOCOL, "udp")))).contains("no PillarProtocol udp");
        assertCode(Status.Code.INVALID_ARGUMENT, () -> publish(VOLUME, Requests.adoption(StorageClassParameters.FS_TYPE, "btrfs")));
        assertCode(Status.Code.INVALID_ARGUMENT, () -> publish(VOLUME, Requests.adoption(StorageClassParameters.PREFIX + "sparse", "true")));
        assertThat(assertCode(Status.Code.INVALID_ARGUMENT, () -> publish("Data_1", Requests.adoption())))
                .contains("Data_1", "lvrename", "zfs rename");
        assertNothingWrittenNorAsked();

        publish(VOLUME, Requests.adoption());
        assertThat(harness.fakeAgent().owns(VOLUME)).isTrue();
    }

    @Test
    void aMissingVolumeIsNotFoundAndAdoptedOnceItExists() {
        String why = assertCode(Status.Code.NOT_FOUND, () -> publish(VOLUME, Requests.adoption()));
        assertThat(why).contains("no volume " + VOLUME + " in store " + CsiHarness.STORE);

        harness.fakeAgent().existingVolume(VOLUME, "fast", GIB);
        publish(VOLUME, Requests.adoption());
        assertThat(harness.state(VOLUME).orElseThrow().getStatus().getPhase()).isEqualTo(VolumePhase.Exported);
    }

    @Test
    void aVolumeInUseIsRefusedAndAdoptedOnceFreedWithTheSameLifecycle() {
        harness.fakeAgent().existingVolume(VOLUME, "fast", GIB).open(VOLUME, true);

        String why = assertCode(Status.Code.FAILED_PRECONDITION, () -> publish(VOLUME, Requests.adoption()));
        assertThat(why).contains("volume " + VOLUME, "PillarStore " + CsiHarness.STORE, "in use");
        PillarVolumeState refused = harness.state(VOLUME).orElseThrow();
        assertThat(refused.getStatus().getPhase()).isEqualTo(VolumePhase.Creating);
        assertThat(harness.fakeAgent().owns(VOLUME)).isFalse();
        assertCode(Status.Code.FAILED_PRECONDITION, () -> publish(VOLUME, Requests.adoption()));

        harness.fakeAgent().open(VOLUME, false);
        publish(VOLUME, Requests.adoption());
        PillarVolumeState adopted = harness.state(VOLUME).orElseThrow();
        assertThat(adopted.getMetadata().getUid()).isEqualTo(refused.getMetadata().getUid());
        assertThat(adopted.getStatus().getPhase()).isEqualTo(VolumePhase.Exported);
        assertThat(harness.fakeAgent().owns(VOLUME)).isTrue();
    }

    @Test
    void aRefusedAdoptionMadeAgainWithOtherAttributesStartsAfresh() {
        harness.fakeAgent().existingVolume(VOLUME, "fast", GIB).open(VOLUME, true);
        assertCode(Status.Code.FAILED_PRECONDITION, () -> publish(VOLUME, Requests.adoption()));
        String first = harness.state(VOLUME).orElseThrow().getMetadata().getUid();

        // the PersistentVolume made again, now naming xfs, once the volume is free
        harness.fakeAgent().open(VOLUME, false);
        VolumeCapability xfs = Requests.mount(VolumeCapability.AccessMode.Mode.SINGLE_NODE_WRITER, "xfs");
        harness.csi().controllerPublishVolume(Requests.publish(VOLUME, NODE_A, xfs,
                Requests.adoption(StorageClassParameters.FS_TYPE, "xfs")));
        PillarVolumeState adopted = harness.state(VOLUME).orElseThrow();
        assertThat(adopted.getMetadata().getUid()).isNotEqualTo(first);
        assertThat(adopted.getSpec().getFsType()).isEqualTo("xfs");
        assertThat(adopted.getStatus().getPhase()).isEqualTo(VolumePhase.Exported);
        assertThat(harness.states()).hasSize(1);
    }

    @Test
    void anotherInstallationsVolumeIsRefusedAndNeverDestroyedWhenItsVolumeIsDeleted() {
        harness.fakeAgent().foreignVolume(VOLUME, "fast", GIB, "prod-2");

        String why = assertCode(Status.Code.FAILED_PRECONDITION, () -> publish(VOLUME, Requests.adoption()));
        assertThat(why).contains("volume " + VOLUME, "PillarStore " + CsiHarness.STORE, "another pillar-csi installation");

        // the PersistentVolume given up with reclaim policy Delete: the refused adoption is forgotten, the volume stays
        harness.csi().deleteVolume(Requests.delete(VOLUME));
        assertThat(harness.state(VOLUME)).isEmpty();
        assertThat(harness.fakeAgent().volumes()).containsKey(VOLUME);
        assertThat(harness.fakeAgents().calls()).noneMatch(c -> c.startsWith("DeleteVolume"));
    }

    @Test
    void anAgentOfBeforeAdoptVolumeMustBeUpgradedAndThenAdopts() {
        harness.fakeAgent().existingVolume(VOLUME, "fast", GIB).servesAdoptVolume(false);

        String why = assertCode(Status.Code.FAILED_PRECONDITION, () -> publish(VOLUME, Requests.adoption()));
        assertThat(why).contains("agent " + CsiHarness.AGENT + " is too old to adopt volumes: upgrade it");
        assertThat(harness.fakeAgent().volumes()).containsKey(VOLUME);

        harness.fakeAgent().servesAdoptVolume(true);
        publish(VOLUME, Requests.adoption());
        assertThat(harness.fakeAgent().owns(VOLUME)).isTrue();
    }
}
