package pillar.controller.csi.adoption;

import static org.assertj.core.api.Assertions.assertThat;
import static pillar.controller.csi.CsiAssertions.assertCode;
import static pillar.controller.csi.CsiHarness.GIB;
import static pillar.controller.csi.Requests.NODE_A;
import static pillar.controller.csi.Requests.NODE_B;

import java.util.Map;

import io.grpc.Status;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import pillar.api.context.PublishContext;
import pillar.api.csi.v1.ControllerGetVolumeRequest;
import pillar.api.csi.v1.VolumeCapability;
import pillar.api.csi.v1.VolumeCapability.AccessMode.Mode;
import pillar.controller.agent.FaultInjectingAgentClient.Fault;
import pillar.controller.crd.PillarVolumeState;
import pillar.controller.crd.Publication;
import pillar.controller.crd.StorageClassParameters;
import pillar.controller.crd.VolumePhase;
import pillar.controller.csi.CsiHarness;
import pillar.controller.csi.Requests;

/**
 * A static PersistentVolume that names an existing LV (planted on the fake agent, unmarked) with
 * {@code pillar.csi.io/adopt: "true"}: its first ControllerPublishVolume adopts it (state first, then
 * the agent's AdoptVolume, then the export) and publishes it; every later call treats it as any volume.
 */
class AdoptionIT {
    private static final String VOLUME = "data-1";
    private static final VolumeCapability XFS = Requests.mount(Mode.SINGLE_NODE_WRITER, "xfs");

    @RegisterExtension
    final CsiHarness harness = CsiHarness.withFakeAgent();

    private Map<String, String> attributes() {
        return Requests.adoption(StorageClassParameters.FS_TYPE, "xfs");
    }

    private Map<String, String> publish(String node) {
        return harness.csi().controllerPublishVolume(Requests.publish(VOLUME, node, XFS, attributes())).getPublishContextMap();
    }

    @Test
    void theFirstPublishAdoptsTheVolumeRecordsItAndPublishesIt() {
        harness.fakeAgent().existingVolume(VOLUME, "fast", 5 * GIB + 123);

        Map<String, String> context = publish(NODE_A);

        assertThat(context).containsEntry(PublishContext.NQN, "nqn.2024-06.io.pillar-csi:" + VOLUME)
                .containsEntry(PublishContext.TRADDR, CsiHarness.FAKE_HOST);
        PillarVolumeState state = harness.state(VOLUME).orElseThrow();
        assertThat(state.getSpec().getStore()).isEqualTo(CsiHarness.STORE);
        assertThat(state.getSpec().getProtocol()).isEqualTo(CsiHarness.PROTOCOL);
        assertThat(state.getSpec().getBackend()).isEqualTo("fast");
        assertThat(state.getSpec().getFsType()).isEqualTo("xfs");
        assertThat(state.getSpec().getAccessModes()).containsExactly("SINGLE_NODE_WRITER");
        assertThat(state.getSpec().getParameters()).isEqualTo(attributes());
        assertThat(state.getSpec().getBackendOptions()).isEmpty();
        assertThat(state.getStatus().getPhase()).isEqualTo(VolumePhase.Exported);
        assertThat(state.getStatus().getCapacityBytes()).isEqualTo(5 * GIB + 123);
        assertThat(state.getStatus().getDevicePath()).isEqualTo("/dev/vg0/" + VOLUME);
        assertThat(state.getStatus().getPublications()).containsExactly(new Publication(NODE_A, false, "SINGLE_NODE_WRITER"));
        assertThat(harness.fakeAgent().owns(VOLUME)).isTrue();
        assertThat(harness.fakeAgent().volumes().get(VOLUME).size()).as("the volume is never resized").isEqualTo(5 * GIB + 123);
        assertThat(harness.fakeAgent().mark(VOLUME).orElseThrow().lifecycle().value()).isEqualTo(state.getMetadata().getUid());
        assertThat(harness.fakeAgent().allowedHosts(VOLUME)).containsExactly(NODE_A);
        assertThat(harness.fakeAgents().calls()).noneMatch(c -> c.startsWith("CreateVolume"));
        assertThat(harness.csi().controllerGetVolume(ControllerGetVolumeRequest.newBuilder().setVolumeId(VOLUME).build())
                .getVolume().getCapacityBytes()).isEqualTo(5 * GIB + 123);

        // the same publish again: the same answer, and the agent is not asked to adopt again
        assertThat(publish(NODE_A)).isEqualTo(context);
        assertThat(harness.fakeAgents().calls().stream().filter(c -> c.startsWith("AdoptVolume"))).hasSize(1);
        assertThat(harness.states()).hasSize(1);
    }

    @Test
    void aRetryAfterTheStateWasWrittenButTheAgentNeverAskedResumesTheSameLifecycle() {
        harness.fakeAgent().existingVolume(VOLUME, "fast", 2 * GIB);
        harness.agents.fail("AdoptVolume", Fault.BEFORE);

        assertCode(Status.Code.UNAVAILABLE, () -> publish(NODE_A));
        PillarVolumeState written = harness.state(VOLUME).orElseThrow();
        assertThat(written.getStatus().getPhase()).isEqualTo(VolumePhase.Creating);
        assertThat(harness.fakeAgent().owns(VOLUME)).isFalse();

        publish(NODE_A);
        PillarVolumeState state = harness.state(VOLUME).orElseThrow();
        assertThat(state.getMetadata().getUid()).isEqualTo(written.getMetadata().getUid());
        assertThat(state.getStatus().getPhase()).isEqualTo(VolumePhase.Exported);
        assertThat(harness.fakeAgent().mark(VOLUME).orElseThrow().lifecycle().value()).isEqualTo(written.getMetadata().getUid());
        assertThat(harness.fakeAgent().allowedHosts(VOLUME)).containsExactly(NODE_A);
    }

    @Test
    void aCrashAfterTheAgentAdoptedItIsFinishedByTheNextControllersPublish() {
        harness.fakeAgent().existingVolume(VOLUME, "fast", 2 * GIB);
        harness.agents.fail("AdoptVolume", Fault.AFTER);

        assertCode(Status.Code.DEADLINE_EXCEEDED, () -> publish(NODE_A));
        assertThat(harness.fakeAgent().owns(VOLUME)).isTrue();
        harness.restart();

        publish(NODE_A);
        PillarVolumeState state = harness.state(VOLUME).orElseThrow();
        assertThat(state.getStatus().getPhase()).isEqualTo(VolumePhase.Exported);
        assertThat(state.getStatus().getCapacityBytes()).isEqualTo(2 * GIB);
        assertThat(harness.fakeAgent().allowedHosts(VOLUME)).containsExactly(NODE_A);
        assertThat(harness.states()).hasSize(1);
    }

    @Test
    void anAdoptedVolumeIsWrittenFromOneNodeAtATimeLikeAnyOther() {
        harness.fakeAgent().existingVolume(VOLUME, "fast", GIB);
        publish(NODE_A);

        String why = assertCode(Status.Code.FAILED_PRECONDITION, () -> publish(NODE_B));
        assertThat(why).contains(NODE_A);
        assertThat(harness.fakeAgent().allowedHosts(VOLUME)).containsExactly(NODE_A);

        harness.csi().controllerUnpublishVolume(Requests.unpublish(VOLUME, NODE_A));
        publish(NODE_B);
        assertThat(harness.fakeAgent().allowedHosts(VOLUME)).containsExactly(NODE_B);
        assertThat(harness.state(VOLUME).orElseThrow().getStatus().getPublications())
                .containsExactly(new Publication(NODE_B, false, "SINGLE_NODE_WRITER"));
    }

    @Test
    void unpublishAndDeleteTreatAnAdoptedVolumeAsAnyOther() {
        harness.fakeAgent().existingVolume(VOLUME, "fast", GIB);
        publish(NODE_A);

        assertCode(Status.Code.FAILED_PRECONDITION, () -> harness.csi().deleteVolume(Requests.delete(VOLUME)));
        harness.csi().controllerUnpublishVolume(Requests.unpublish(VOLUME, NODE_A));
        assertThat(harness.fakeAgent().allowedHosts(VOLUME)).isEmpty();
        assertThat(harness.fakeAgent().volumes()).containsKey(VOLUME);

        // a PersistentVolume of reclaim policy Delete: the adopted volume is destroyed, as a created one is
        harness.csi().deleteVolume(Requests.delete(VOLUME));
        assertThat(harness.state(VOLUME)).isEmpty();
        assertThat(harness.fakeAgent().volumes()).doesNotContainKey(VOLUME);
        assertThat(harness.fakeAgent().exports()).doesNotContainKey(VOLUME);
        harness.csi().deleteVolume(Requests.delete(VOLUME));
    }

    @Test
    void aVolumeThisDriverCreatedIsPublishedAsRecordedUnderAStaticPersistentVolume() {
        harness.csi().createVolume(Requests.create("pvc-7", GIB));

        // a PV written again by hand for a Retained volume: the attributes must name its store and protocol
        harness.csi().controllerPublishVolume(Requests.publish("pvc-7", NODE_A, Requests.rwo(), Requests.adoption()));
        assertThat(harness.fakeAgent().allowedHosts("pvc-7")).containsExactly(NODE_A);
        assertThat(harness.fakeAgents().calls()).noneMatch(c -> c.startsWith("AdoptVolume"));
        assertThat(harness.state("pvc-7").orElseThrow().getSpec().getParameters()).doesNotContainKey(StorageClassParameters.ADOPT);

        String why = assertCode(Status.Code.FAILED_PRECONDITION, () -> harness.csi().controllerPublishVolume(Requests.publish(
                "pvc-7", NODE_A, Requests.rwo(), Requests.adoption(StorageClassParameters.STORE, "slow"))));
        assertThat(why).contains("PillarStore fast", "store slow");
    }
}
