package pillar.controller.csi.settings;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static pillar.controller.csi.CsiHarness.GIB;

import java.util.Map;
import java.util.Optional;

import io.fabric8.kubernetes.api.model.PersistentVolumeClaimBuilder;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import pillar.api.agent.v1.BackendKind;
import pillar.api.context.VolumeContext;
import pillar.api.csi.v1.Volume;
import pillar.controller.crd.Conditions;
import pillar.controller.crd.PillarStore;
import pillar.controller.crd.StorageClassParameters;
import pillar.controller.crd.ZfsStore;
import pillar.controller.csi.CsiHarness;
import pillar.controller.csi.Requests;
import pillar.controller.reconcile.ControllerHarness;
import pillar.controller.reconcile.Pillars;

/**
 * Settings resolve in layers, store, then StorageClass, then the claim's annotations (read through
 * the claim name and namespace that external-provisioner passes) of the settings the class lets
 * claims override (none by default: any other is INVALID_ARGUMENT), and are frozen on the state: a
 * retried CreateVolume after the claim changed creates with what was frozen.
 */
class SettingsLayersIT {
    @RegisterExtension
    final CsiHarness harness = CsiHarness.withFakeAgent();

    @BeforeEach
    void aZfsStoreWithItsOwnSettings() {
        harness.fakeAgent().backend("tank", BackendKind.BACKEND_KIND_ZFS_ZVOL, "tank", "k8s").capacity("tank", 100 * GIB, 100 * GIB);
        PillarStore tank = Pillars.zfsStore("tank", CsiHarness.AGENT, "tank", "tank", "k8s");
        tank.getSpec().getZfs().setVolblocksize("16K");
        tank.getSpec().getZfs().setCompression(ZfsStore.Compression.LZ4);
        harness.client().resource(tank).create();
        await().atMost(ControllerHarness.PATIENCE).until(() -> Optional.ofNullable(harness.client().resources(PillarStore.class)
                .withName("tank").get()).filter(s -> s.getStatus() != null)
                .map(s -> Conditions.isTrue(s.getStatus().getConditions(), PillarStore.POOL_DISCOVERED)).orElse(false));
    }

    @Test
    void theClaimOverridesTheClassWhichOverridesTheStoreAndTheResultIsFrozen() {
        claim(Map.of(StorageClassParameters.VOLBLOCKSIZE, "64K", StorageClassParameters.MKFS_OPTIONS, "-m 0"));
        Map<String, String> parameters = Requests.parameters(StorageClassParameters.STORE, "tank",
                StorageClassParameters.VOLBLOCKSIZE, "32K", StorageClassParameters.SPARSE, "true",
                StorageClassParameters.OVERRIDABLE, "volblocksize,mkfsOptions", "csi.storage.k8s.io/pvc/name", "data", "csi.storage.k8s.io/pvc/namespace", "apps",
                "csi.storage.k8s.io/pv/name", "pvc-z1");
        Volume volume = harness.csi().createVolume(Requests.create("pvc-z1", GIB, Requests.rwo(), parameters)).getVolume();

        Map<String, String> frozen = Map.of("volblocksize", "64K", "sparse", "true", "compression", "lz4");
        assertThat(harness.fakeAgent().volumes().get("pvc-z1").options()).isEqualTo(frozen);
        assertThat(harness.state("pvc-z1").orElseThrow().getSpec().getBackendOptions()).isEqualTo(frozen);
        assertThat(harness.state("pvc-z1").orElseThrow().getSpec().getClaim()).isEqualTo("apps/data");
        assertThat(volume.getVolumeContextMap()).containsEntry(VolumeContext.MKFS_OPTIONS, "-m 0")
                .containsEntry(VolumeContext.BACKEND, "zfs");

        // the claim changes; the retried CreateVolume answers the same volume, created as frozen
        claim(Map.of(StorageClassParameters.VOLBLOCKSIZE, "8K"));
        assertThat(harness.csi().createVolume(Requests.create("pvc-z1", GIB, Requests.rwo(), parameters)).getVolume())
                .isEqualTo(volume);
        assertThat(harness.state("pvc-z1").orElseThrow().getSpec().getBackendOptions()).isEqualTo(frozen);
    }

    @Test
    void byDefaultAClaimOverridesNothingAndEachAnnotationIsRefusedByNameWithNothingWritten() {
        Map<String, String> thick = Map.of("sparse", "true", "volblocksize", "64K", "compression", "off",
                "mkfsOptions", "-m 0");
        for (Map.Entry<String, String> annotation : thick.entrySet()) {
            String key = StorageClassParameters.key(annotation.getKey());
            claim(Map.of(key, annotation.getValue()));
            for (String overridable : new String[] {null, "compression".equals(annotation.getKey()) ? "sparse" : "compression"}) {
                Map<String, String> parameters = new java.util.HashMap<>(Requests.parameters(StorageClassParameters.STORE, "tank",
                        "csi.storage.k8s.io/pvc/name", "data", "csi.storage.k8s.io/pvc/namespace", "apps"));
                if (overridable != null) {
                    parameters.put(StorageClassParameters.OVERRIDABLE, overridable);
                }
                io.grpc.StatusRuntimeException refused = org.assertj.core.api.Assertions.catchThrowableOfType(
                        io.grpc.StatusRuntimeException.class,
                        () -> harness.csi().createVolume(Requests.create("pvc-z3", GIB, Requests.rwo(), parameters)));
                assertThat(refused).as(key + " with overridable " + overridable).isNotNull();
                assertThat(refused.getStatus().getCode()).isEqualTo(io.grpc.Status.Code.INVALID_ARGUMENT);
                assertThat(refused.getStatus().getDescription()).contains(key).doesNotContain(annotation.getValue());
                assertThat(harness.state("pvc-z3")).as("no record for " + key).isEmpty();
                assertThat(harness.fakeAgent().volumes()).doesNotContainKey("pvc-z3");
            }
        }
        // an annotation outside pillar.csi.io is none of pillar's business
        claim(Map.of("example.com/team", "a"));
        harness.csi().createVolume(Requests.create("pvc-z3", GIB, Requests.rwo(), Requests.parameters(
                StorageClassParameters.STORE, "tank", "csi.storage.k8s.io/pvc/name", "data", "csi.storage.k8s.io/pvc/namespace", "apps")));
        assertThat(harness.fakeAgent().volumes().get("pvc-z3").options())
                .isEqualTo(Map.of("volblocksize", "16K", "sparse", "false", "compression", "lz4"));
    }

    @Test
    void withoutAClaimTheStoreAndClassDecide() {
        harness.csi().createVolume(Requests.create("pvc-z2", GIB, Requests.rwo(),
                Requests.parameters(StorageClassParameters.STORE, "tank", "csi.storage.k8s.io/pvc/name", "gone",
                        "csi.storage.k8s.io/pvc/namespace", "apps")));
        assertThat(harness.fakeAgent().volumes().get("pvc-z2").options())
                .isEqualTo(Map.of("volblocksize", "16K", "sparse", "false", "compression", "lz4"));
    }

    private void claim(Map<String, String> annotations) {
        harness.client().resource(new PersistentVolumeClaimBuilder().withNewMetadata().withNamespace("apps").withName("data")
                .withAnnotations(annotations).endMetadata().build()).createOr(c -> c.update());
    }
}
