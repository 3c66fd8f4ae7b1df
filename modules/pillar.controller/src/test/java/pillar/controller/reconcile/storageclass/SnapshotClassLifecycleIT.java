package pillar.controller.reconcile.storageclass;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.util.Map;
import java.util.Optional;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinitionBuilder;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import pillar.controller.crd.Condition;
import pillar.controller.crd.PillarStorageClass;
import pillar.controller.crd.PillarStorageClassSpec;
import pillar.controller.crd.Reasons;
import pillar.controller.reconcile.ControllerHarness;
import pillar.controller.reconcile.Pillars;

/**
 * Proves that a PillarStorageClass brings a VolumeSnapshotClass of its name (driver pillar.csi.io,
 * owned by it, its reclaim policy as deletion policy) when the cluster serves the external-
 * snapshotter's API and its store can take snapshots; that a linear LVM store gets none and says
 * so; that a cluster without the API is told what to install; that a class that is not ours is
 * left alone; and that ours goes with its PillarStorageClass.
 */
class SnapshotClassLifecycleIT {
    @RegisterExtension
    final ControllerHarness harness = new ControllerHarness();

    @BeforeEach
    void aProtocolAndStores() {
        harness.create(Pillars.protocol("tcp", "192.0.2.10"));
        harness.create(Pillars.zfsStore("tank", "storage-1", "fast", "tank", "k8s"));
        harness.create(Pillars.lvmStore("thin", "storage-1", "thin", "vg0", "pool0"));
        harness.create(Pillars.lvmStore("linear", "storage-1", "linear", "vg1", null));
    }

    private Optional<GenericKubernetesResource> snapshotClass(String name) {
        return Optional.ofNullable(harness.client().genericKubernetesResources("snapshot.storage.k8s.io/v1", "VolumeSnapshotClass")
                .withName(name).get());
    }

    private Condition awaitSnapshotCondition(String name, String status, String reason) {
        return harness.awaitCondition(PillarStorageClass.class, name, PillarStorageClass.SNAPSHOT_CLASS_CREATED, status, reason,
                c -> c.getStatus().getConditions());
    }

    /** The external-snapshotter's VolumeSnapshotClass CRD, as far as the API server's discovery needs it. */
    private void installSnapshotApi() {
        CustomResourceDefinition crd = new CustomResourceDefinitionBuilder()
                .withNewMetadata().withName("volumesnapshotclasses.snapshot.storage.k8s.io").endMetadata()
                .withNewSpec().withGroup("snapshot.storage.k8s.io").withScope("Cluster")
                .withNewNames().withKind("VolumeSnapshotClass").withPlural("volumesnapshotclasses")
                .withSingular("volumesnapshotclass").withListKind("VolumeSnapshotClassList").endNames()
                .addNewVersion().withName("v1").withServed(true).withStorage(true)
                .withNewSchema().withNewOpenAPIV3Schema().withType("object").withXKubernetesPreserveUnknownFields(true)
                .endOpenAPIV3Schema().endSchema().endVersion()
                .endSpec().build();
        harness.client().apiextensions().v1().customResourceDefinitions().resource(crd).create();
    }

    @Test
    void aClusterWithoutTheSnapshotApiIsToldWhatToInstallAndFollowsOnceItIs() {
        harness.create(Pillars.storageClass("fast", "tank", "tcp"));
        Condition missing = awaitSnapshotCondition("fast", Condition.FALSE, Reasons.SNAPSHOT_API_MISSING);
        assertThat(missing.getMessage()).contains("snapshot.storage.k8s.io/v1").contains("external-snapshotter");
        assertThat(harness.get(PillarStorageClass.class, "fast").orElseThrow().getStatus().getStorageClassName())
                .isEqualTo("fast");

        installSnapshotApi();
        harness.edit(PillarStorageClass.class, "fast", psc -> {
            psc.getMetadata().setLabels(Map.of("touched", "yes"));
            return psc;
        });
        awaitSnapshotCondition("fast", Condition.TRUE, Reasons.CREATED);
        assertThat(snapshotClass("fast")).isPresent();
    }

    @Test
    void appearsChangesAndDisappearsWithItsPillarStorageClass() {
        installSnapshotApi();
        PillarStorageClass created = harness.create(Pillars.storageClass("fast", "tank", "tcp"));
        harness.create(Pillars.storageClass("thin", "thin", "tcp"));

        awaitSnapshotCondition("fast", Condition.TRUE, Reasons.CREATED);
        GenericKubernetesResource vsc = snapshotClass("fast").orElseThrow();
        assertThat(vsc.get("driver").toString()).isEqualTo("pillar.csi.io");
        assertThat(vsc.get("deletionPolicy").toString()).isEqualTo("Delete");
        assertThat(vsc.getMetadata().getOwnerReferences()).singleElement().satisfies(owner -> {
            assertThat(owner.getUid()).isEqualTo(created.getMetadata().getUid());
            assertThat(owner.getKind()).isEqualTo("PillarStorageClass");
        });
        assertThat(harness.get(PillarStorageClass.class, "fast").orElseThrow().getStatus().getSnapshotClassName())
                .isEqualTo("fast");
        awaitSnapshotCondition("thin", Condition.TRUE, Reasons.CREATED);
        assertThat(snapshotClass("thin")).isPresent();

        harness.edit(PillarStorageClass.class, "fast", psc -> {
            psc.getSpec().setReclaimPolicy(PillarStorageClassSpec.ReclaimPolicy.Retain);
            return psc;
        });
        await().atMost(ControllerHarness.PATIENCE).until(() -> snapshotClass("fast"),
                c -> c.isPresent() && "Retain".equals(c.get().get("deletionPolicy")));

        harness.delete(PillarStorageClass.class, "fast");
        await().atMost(ControllerHarness.PATIENCE).until(() -> snapshotClass("fast").isEmpty());
        assertThat(snapshotClass("thin")).isPresent();
    }

    @Test
    void aLinearStoreGetsNoSnapshotClassAndSaysWhy() {
        installSnapshotApi();
        harness.create(Pillars.storageClass("slow", "linear", "tcp"));
        Condition unsupported = awaitSnapshotCondition("slow", Condition.FALSE, Reasons.SNAPSHOTS_UNSUPPORTED);
        assertThat(unsupported.getMessage()).contains("linear").contains("thin pool");
        assertThat(snapshotClass("slow")).isEmpty();
        assertThat(harness.get(io.fabric8.kubernetes.api.model.storage.StorageClass.class, "slow")).isPresent();
    }

    @Test
    void aDatasetStoreGetsItsSnapshotClassAsAZvolStoreDoes() {
        installSnapshotApi();
        harness.create(Pillars.nfsProtocol("nfs", "192.0.2.10"));
        harness.create(Pillars.datasetStore("shared", "storage-1", "datasets", "tank", "nfs"));
        harness.create(Pillars.storageClass("rwx", "shared", "nfs"));
        awaitSnapshotCondition("rwx", Condition.TRUE, Reasons.CREATED);
        assertThat(snapshotClass("rwx")).isPresent();
    }

    @Test
    void aSnapshotClassThatIsNotOursIsLeftAlone() {
        installSnapshotApi();
        harness.client().genericKubernetesResources("snapshot.storage.k8s.io/v1", "VolumeSnapshotClass")
                .resource(new GenericKubernetesResourceBuilder().withApiVersion("snapshot.storage.k8s.io/v1")
                        .withKind("VolumeSnapshotClass").withNewMetadata().withName("fast").endMetadata()
                        .addToAdditionalProperties("driver", "zfs.csi.openebs.io")
                        .addToAdditionalProperties("deletionPolicy", "Delete").build()).create();
        harness.create(Pillars.storageClass("fast", "tank", "tcp"));
        assertThat(awaitSnapshotCondition("fast", Condition.FALSE, Reasons.NAME_CONFLICT).getMessage())
                .contains("not managed by this PillarStorageClass");
        harness.delete(PillarStorageClass.class, "fast");
        await().atMost(ControllerHarness.PATIENCE).until(() -> harness.get(PillarStorageClass.class, "fast").isEmpty());
        assertThat(snapshotClass("fast").orElseThrow().get("driver").toString()).isEqualTo("zfs.csi.openebs.io");
    }
}
