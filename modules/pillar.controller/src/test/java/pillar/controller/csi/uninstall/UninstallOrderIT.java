package pillar.controller.csi.uninstall;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;
import static pillar.controller.csi.CsiHarness.GIB;

import java.util.List;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.storage.StorageClass;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import pillar.controller.crd.PillarAgent;
import pillar.controller.crd.PillarProtocol;
import pillar.controller.crd.PillarSnapshotState;
import pillar.controller.crd.PillarStorageClass;
import pillar.controller.crd.PillarStore;
import pillar.controller.crd.PillarVolumeState;
import pillar.controller.csi.CsiHarness;
import pillar.controller.csi.Requests;
import pillar.controller.reconcile.ControllerHarness;
import pillar.controller.reconcile.Pillars;

/**
 * The README's uninstall, step by step, against the controller as its main starts it and a fake
 * agent: the claims and snapshots first (DeleteVolume and DeleteSnapshot, as the sidecars call them,
 * end the records their finalizers held), then the Pillar objects (no finalizer: gone at once, the
 * generated StorageClass with its PillarStorageClass), then the controller, then the CRDs; nothing
 * of pillar-csi is left in the API, and on the storage node only the agent's state (its fencing
 * marks). In the wrong order, the Pillar objects first, a claim's DeleteVolume is refused
 * FAILED_PRECONDITION and its PillarVolumeState and volume stay, held, until the PillarAgent is back.
 */
class UninstallOrderIT {
    private static final List<Class<? extends HasMetadata>> KINDS = List.of(PillarVolumeState.class,
            PillarSnapshotState.class, PillarStorageClass.class, PillarProtocol.class, PillarStore.class, PillarAgent.class);

    @RegisterExtension
    final CsiHarness harness = CsiHarness.withFakeAgent();

    @Test
    void theDocumentedOrderLeavesNothingOfPillarCsi() {
        installed();
        String snapshot = harness.csi().createSnapshot(Requests.snapshot("snap-1", "pvc-1")).getSnapshot().getSnapshotId();
        assertThat(harness.states()).singleElement().satisfies(s -> assertThat(s.getMetadata().getFinalizers())
                .containsExactly(PillarVolumeState.FINALIZER));
        assertThat(list(PillarSnapshotState.class)).singleElement().satisfies(s -> assertThat(s.getMetadata().getFinalizers())
                .containsExactly(PillarSnapshotState.FINALIZER));
        for (Class<? extends HasMetadata> kind : KINDS.subList(2, KINDS.size())) {
            assertThat(list(kind)).as(kind.getSimpleName() + " holds no finalizer").allSatisfy(o -> assertThat(
                    o.getMetadata().getFinalizers()).isNullOrEmpty());
        }

        // 1. the VolumeSnapshots and claims: the sidecars' DeleteSnapshot and DeleteVolume end the held records
        harness.csi().deleteSnapshot(Requests.deleteSnapshot(snapshot));
        harness.csi().deleteVolume(Requests.delete("pvc-1"));
        assertThat(list(PillarSnapshotState.class)).isEmpty();
        assertThat(harness.states()).isEmpty();

        // 2. the Pillar objects, which no finalizer holds; the generated StorageClass goes with its class
        for (Class<? extends HasMetadata> kind : KINDS.subList(2, KINDS.size())) {
            harness.client().resources(kind).delete();
            assertThat(list(kind)).as(kind.getSimpleName()).isEmpty();
        }
        await().atMost(ControllerHarness.PATIENCE).until(() -> ours().isEmpty());

        // 3. helm uninstall stops the controller; 4. the CRDs go
        harness.stopControllers();
        harness.client().apiextensions().v1().customResourceDefinitions().list().getItems().stream()
                .filter(crd -> crd.getSpec().getGroup().equals("pillar.csi.io"))
                .forEach(crd -> harness.client().resource(crd).delete());
        assertThat(harness.client().apiextensions().v1().customResourceDefinitions().list().getItems())
                .noneMatch(crd -> crd.getSpec().getGroup().equals("pillar.csi.io"));
        assertThat(ours()).isEmpty();
        assertThat(harness.fakeAgent().volumes()).as("volumes on the storage node").isEmpty();
        assertThat(harness.fakeAgent().exports()).isEmpty();
        assertThat(harness.fakeAgent().snapshots()).isEmpty();
        assertThat(harness.fakeAgent().mark("pvc-1")).as("the agent's state keeps the fencing mark").isPresent();
    }

    @Test
    void thePillarObjectsFirstLeaveTheVolumeHeldUntilItsAgentIsBack() {
        installed();
        for (Class<? extends HasMetadata> kind : KINDS.subList(2, KINDS.size())) {
            harness.client().resources(kind).delete();
        }

        assertThatThrownBy(() -> harness.csi().deleteVolume(Requests.delete("pvc-1")))
                .isInstanceOfSatisfying(StatusRuntimeException.class, e -> {
                    assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.FAILED_PRECONDITION);
                    assertThat(e.getStatus().getDescription()).contains("PillarAgent " + CsiHarness.AGENT + " does not exist");
                });
        harness.client().resources(PillarVolumeState.class).withName("pvc-1").delete(); // kubectl delete pillarvolumestates --all
        PillarVolumeState held = harness.state("pvc-1").orElseThrow();
        assertThat(held.getMetadata().getDeletionTimestamp()).as("Terminating").isNotNull();
        assertThat(held.getMetadata().getFinalizers()).containsExactly(PillarVolumeState.FINALIZER);
        await().atMost(ControllerHarness.PATIENCE).until(() -> harness.events("pvc-1").stream()
                .anyMatch(e -> PillarVolumeState.DELETION_HELD.equals(e.getReason())));
        assertThat(harness.fakeAgent().volumes()).as("the volume stays on the storage node").containsOnlyKeys("pvc-1");

        harness.client().resource(Pillars.agentAt(CsiHarness.AGENT, CsiHarness.FAKE_HOST, 9500)).create();
        await().atMost(ControllerHarness.PATIENCE).untilAsserted(() -> harness.csi().deleteVolume(Requests.delete("pvc-1")));
        assertThat(harness.states()).isEmpty();
        assertThat(harness.fakeAgent().volumes()).isEmpty();
    }

    /** A PillarStorageClass with its StorageClass in place, and one claim's volume. */
    private void installed() {
        harness.client().resource(Pillars.storageClass("pillar-fast", CsiHarness.STORE, CsiHarness.PROTOCOL)).create();
        await().atMost(ControllerHarness.PATIENCE).until(() -> ours().size() == 1);
        harness.csi().createVolume(Requests.create("pvc-1", GIB));
    }

    private List<? extends HasMetadata> list(Class<? extends HasMetadata> kind) {
        return harness.client().resources(kind).list().getItems();
    }

    /** The StorageClasses of pillar-csi's provisioner. */
    private List<StorageClass> ours() {
        return harness.client().storage().v1().storageClasses().list().getItems().stream()
                .filter(sc -> "pillar.csi.io".equals(sc.getProvisioner())).toList();
    }
}
