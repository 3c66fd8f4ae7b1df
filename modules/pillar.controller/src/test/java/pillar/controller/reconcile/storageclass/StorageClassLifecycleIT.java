package pillar.controller.reconcile.storageclass;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.util.Map;
import java.util.Optional;

import io.fabric8.kubernetes.api.model.storage.StorageClass;
import io.fabric8.kubernetes.api.model.storage.StorageClassBuilder;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import pillar.controller.crd.Condition;
import pillar.controller.crd.NvmeofTcp;
import pillar.controller.crd.TlsMode;
import pillar.controller.crd.PillarAgent;
import pillar.controller.crd.PillarProtocol;
import pillar.controller.crd.PillarStorageClass;
import pillar.controller.crd.PillarStorageClassSpec;
import pillar.controller.crd.Reasons;
import pillar.controller.crd.StorageClassParameters;
import pillar.controller.reconcile.ControllerHarness;
import pillar.controller.reconcile.Pillars;

/**
 * Proves that the StorageClass of a PillarStorageClass appears with it (owned by it, provisioner
 * pillar.csi.io, the store and protocol in its parameters), changes with it (replaced when an
 * immutable field changes, updated in place otherwise), comes back when deleted by hand, and
 * disappears with it; and that a StorageClass of the same name that is not ours is never touched.
 */
class StorageClassLifecycleIT {
    @RegisterExtension
    final ControllerHarness harness = new ControllerHarness();

    @BeforeEach
    void aProtocolAndAStore() {
        harness.create(Pillars.protocol("tcp", "192.0.2.10"));
        harness.create(Pillars.zfsStore("tank", "storage-1", "fast", "tank", "k8s"));
    }

    private Optional<StorageClass> storageClass(String name) {
        return harness.get(StorageClass.class, name);
    }

    private Condition awaitCondition(String name, String status, String reason) {
        return harness.awaitCondition(PillarStorageClass.class, name, PillarStorageClass.STORAGE_CLASS_CREATED, status, reason,
                c -> c.getStatus().getConditions());
    }

    @Test
    void anNfsClassOnADatasetStoreSaysNfs4AndEveryOtherPairingIsAProtocolStoreMismatch() {
        harness.create(Pillars.nfsProtocol("nfs", "192.0.2.10"));
        harness.create(Pillars.datasetStore("shared", "storage-1", "datasets", "tank", "nfs"));
        harness.create(Pillars.storageClass("rwx", "shared", "nfs"));
        awaitCondition("rwx", Condition.TRUE, Reasons.CREATED);
        assertThat(storageClass("rwx").orElseThrow().getParameters())
                .containsEntry(StorageClassParameters.FS_TYPE, "nfs4")
                .containsEntry(StorageClassParameters.STORE, "shared")
                .containsEntry(StorageClassParameters.PROTOCOL, "nfs");

        harness.create(Pillars.storageClass("nfs-on-zvols", "tank", "nfs"));
        assertThat(awaitCondition("nfs-on-zvols", Condition.FALSE, Reasons.PROTOCOL_STORE_MISMATCH).getMessage())
                .contains("PillarProtocol nfs is nfs").contains("layout: dataset");
        harness.create(Pillars.storageClass("tcp-on-datasets", "shared", "tcp"));
        assertThat(awaitCondition("tcp-on-datasets", Condition.FALSE, Reasons.PROTOCOL_STORE_MISMATCH).getMessage())
                .contains("holds filesystem datasets");
        assertThat(storageClass("nfs-on-zvols")).isEmpty();
        assertThat(storageClass("tcp-on-datasets")).isEmpty();
    }

    @Test
    void aProtocolRequiringAuthNeedsAnAgentWithItAndNamesTheStageSecret() {
        harness.agents.agent("192.0.2.10", 9500).nvmeAuth(false);
        harness.create(Pillars.agentAt("storage-1", "192.0.2.10", 9500));
        harness.awaitAgentConnected("storage-1", Condition.TRUE, Reasons.CONNECTED);
        // made with auth required at once: the class's reconciler, reading a cache, must never see it without
        pillar.controller.crd.PillarProtocol requiring = Pillars.protocol("tcp-auth", "192.0.2.10");
        requiring.getSpec().getNvmeofTcp().setAuth(pillar.controller.crd.NvmeofTcp.Auth.REQUIRED);
        harness.create(requiring);
        harness.create(Pillars.storageClass("secure", "tank", "tcp-auth"));
        // the refusal says first that the agent has not reported its kernel, then what the kernel lacks
        await().atMost(ControllerHarness.PATIENCE).untilAsserted(() -> assertThat(
                awaitCondition("secure", Condition.FALSE, Reasons.NVME_AUTH_UNSUPPORTED).getMessage())
                .contains("storage-1").contains("CONFIG_NVME_TARGET_AUTH"));
        assertThat(storageClass("secure")).isEmpty();

        // the agent's kernel gains it (an upgrade): the class follows without being touched
        harness.agents.agent("192.0.2.10", 9500).nvmeAuth(true);
        awaitCondition("secure", Condition.TRUE, Reasons.CREATED);
        assertThat(storageClass("secure").orElseThrow().getParameters())
                .containsEntry("csi.storage.k8s.io/node-stage-secret-name", "pillar-auth-${pv.name}")
                .containsEntry("csi.storage.k8s.io/node-stage-secret-namespace", ControllerHarness.NAMESPACE);
        // a class whose protocol does not authenticate names no Secret
        harness.create(Pillars.storageClass("plain", "tank", "tcp"));
        awaitCondition("plain", Condition.TRUE, Reasons.CREATED);
        assertThat(storageClass("plain").orElseThrow().getParameters()).doesNotContainKey("csi.storage.k8s.io/node-stage-secret-name");
    }

    @Test
    void aProtocolRequiringTlsNeedsAnAgentThatReportsItAndNamesNoSecret() {
        harness.agents.agent("192.0.2.10", 9500).nvmeTls(false);
        harness.create(Pillars.agentAt("storage-1", "192.0.2.10", 9500));
        harness.awaitAgentConnected("storage-1", Condition.TRUE, Reasons.CONNECTED);
        assertThat(harness.get(PillarAgent.class, "storage-1").orElseThrow().getStatus().getNvmeTls()).isFalse();
        PillarProtocol requiring = Pillars.protocol("tcp-tls", "192.0.2.10");
        requiring.getSpec().getNvmeofTcp().setTls(TlsMode.REQUIRED);
        harness.create(requiring);
        harness.create(Pillars.storageClass("private", "tank", "tcp-tls"));
        await().atMost(ControllerHarness.PATIENCE).untilAsserted(() -> assertThat(
                awaitCondition("private", Condition.FALSE, Reasons.NVME_TLS_UNSUPPORTED).getMessage())
                .contains("storage-1").contains("CONFIG_NVME_TARGET_TCP_TLS"));
        assertThat(storageClass("private")).isEmpty();

        // the agent is upgraded onto a kernel that can: its status says so and the class follows
        harness.agents.agent("192.0.2.10", 9500).nvmeTls(true);
        awaitCondition("private", Condition.TRUE, Reasons.CREATED);
        assertThat(harness.get(PillarAgent.class, "storage-1").orElseThrow().getStatus().getNvmeTls()).isTrue();
        // the key reaches the node in its publish context: kubelet is given no Secret
        assertThat(storageClass("private").orElseThrow().getParameters()).doesNotContainKey("csi.storage.k8s.io/node-stage-secret-name");
    }

    @Test
    void anNfsProtocolRequiringTlsNeedsAnAgentThatReportsNfsTls() {
        harness.agents.agent("192.0.2.10", 9500).nfsTls(false);
        harness.create(Pillars.agentAt("storage-1", "192.0.2.10", 9500));
        harness.awaitAgentConnected("storage-1", Condition.TRUE, Reasons.CONNECTED);
        assertThat(harness.get(PillarAgent.class, "storage-1").orElseThrow().getStatus().getNfsTls()).isFalse();
        PillarProtocol requiring = Pillars.nfsProtocol("nfs-tls", "192.0.2.10");
        requiring.getSpec().getNfs().setTls(pillar.controller.crd.TlsMode.REQUIRED);
        harness.create(requiring);
        harness.create(Pillars.datasetStore("shared", "storage-1", "datasets", "tank", "nfs"));
        harness.create(Pillars.storageClass("rwx-tls", "shared", "nfs-tls"));
        await().atMost(ControllerHarness.PATIENCE).untilAsserted(() -> assertThat(
                awaitCondition("rwx-tls", Condition.FALSE, Reasons.NFS_TLS_UNSUPPORTED).getMessage())
                .contains("storage-1").contains("xprtsec").contains("tls: off"));
        assertThat(storageClass("rwx-tls")).isEmpty();

        // the storage node moves to Debian 13's nfs-utils: the agent says so and the class follows
        harness.agents.agent("192.0.2.10", 9500).nfsTls(true);
        awaitCondition("rwx-tls", Condition.TRUE, Reasons.CREATED);
        assertThat(harness.get(PillarAgent.class, "storage-1").orElseThrow().getStatus().getNfsTls()).isTrue();
    }

    /** A class on a protocol that admits any host says that it serves no single-node access mode; one with an ACL says it does. */
    @Test
    void aClassOnAProtocolWithoutAclSaysItServesNoSingleNodeAccessMode() {
        harness.create(Pillars.protocol("open", "192.0.2.10"));
        harness.edit(pillar.controller.crd.PillarProtocol.class, "open", p -> {
            p.getSpec().getNvmeofTcp().setAclEnabled(false);
            return p;
        });
        harness.create(Pillars.storageClass("shared-ro", "tank", "open"));
        Condition refused = harness.awaitCondition(PillarStorageClass.class, "shared-ro", PillarStorageClass.SINGLE_NODE_ACCESS,
                Condition.FALSE, Reasons.ACL_DISABLED, c -> c.getStatus().getConditions());
        assertThat(refused.getMessage()).contains("aclEnabled: false").contains("ReadOnlyMany").contains("INVALID_ARGUMENT");
        awaitCondition("shared-ro", Condition.TRUE, Reasons.CREATED);

        harness.create(Pillars.storageClass("fenced", "tank", "tcp"));
        harness.awaitCondition(PillarStorageClass.class, "fenced", PillarStorageClass.SINGLE_NODE_ACCESS, Condition.TRUE,
                Reasons.FENCED, c -> c.getStatus().getConditions());
    }

    @Test
    void appearsChangesAndDisappearsWithItsPillarStorageClass() {
        PillarStorageClass created = harness.create(Pillars.storageClass("fast-nvme", "tank", "tcp"));

        StorageClass sc = await().atMost(ControllerHarness.PATIENCE).until(() -> storageClass("fast-nvme"), Optional::isPresent)
                .orElseThrow();
        assertThat(sc.getProvisioner()).isEqualTo("pillar.csi.io");
        assertThat(sc.getParameters()).containsExactlyInAnyOrderEntriesOf(Map.of(
                StorageClassParameters.STORE, "tank",
                StorageClassParameters.PROTOCOL, "tcp",
                StorageClassParameters.FS_TYPE, "ext4"));
        assertThat(sc.getReclaimPolicy()).isEqualTo("Delete");
        assertThat(sc.getVolumeBindingMode()).isEqualTo("Immediate");
        assertThat(sc.getAllowVolumeExpansion()).isTrue();
        assertThat(sc.getMetadata().getOwnerReferences()).singleElement().satisfies(owner -> {
            assertThat(owner.getUid()).isEqualTo(created.getMetadata().getUid());
            assertThat(owner.getKind()).isEqualTo("PillarStorageClass");
            assertThat(owner.getApiVersion()).isEqualTo("pillar.csi.io/v1alpha1");
            assertThat(owner.getController()).isTrue();
        });
        awaitCondition("fast-nvme", Condition.TRUE, Reasons.CREATED);
        assertThat(harness.get(PillarStorageClass.class, "fast-nvme").orElseThrow().getStatus().getStorageClassName())
                .isEqualTo("fast-nvme");

        // an immutable field changes: the StorageClass is replaced
        String firstUid = sc.getMetadata().getUid();
        harness.edit(PillarStorageClass.class, "fast-nvme", psc -> {
            psc.getSpec().setFsType(PillarStorageClassSpec.FsType.XFS);
            psc.getSpec().setParameters(Map.of("volblocksize", "16K", "sparse", "true"));
            psc.getSpec().getMountOptions().add("noatime");
            return psc;
        });
        StorageClass replaced = await().atMost(ControllerHarness.PATIENCE).until(() -> storageClass("fast-nvme"),
                s -> s.isPresent() && "xfs".equals(s.get().getParameters().get(StorageClassParameters.FS_TYPE))).orElseThrow();
        assertThat(replaced.getMetadata().getUid()).isNotEqualTo(firstUid);
        assertThat(replaced.getParameters()).containsEntry(StorageClassParameters.VOLBLOCKSIZE, "16K")
                .containsEntry(StorageClassParameters.SPARSE, "true").hasSize(5);
        assertThat(replaced.getMountOptions()).containsExactly("noatime");
        assertThat(harness.events("PillarStorageClass", "fast-nvme"))
                .anySatisfy(e -> assertThat(e.getReason()).isEqualTo("StorageClassReplaced"));

        // a mutable field changes: the same StorageClass is updated
        harness.edit(PillarStorageClass.class, "fast-nvme", psc -> {
            psc.getSpec().setAllowVolumeExpansion(false);
            psc.getSpec().setDefaultClass(true);
            return psc;
        });
        StorageClass updated = await().atMost(ControllerHarness.PATIENCE).until(() -> storageClass("fast-nvme"),
                s -> s.isPresent() && Boolean.FALSE.equals(s.get().getAllowVolumeExpansion())).orElseThrow();
        assertThat(updated.getMetadata().getUid()).isEqualTo(replaced.getMetadata().getUid());
        assertThat(updated.getMetadata().getAnnotations()).containsEntry("storageclass.kubernetes.io/is-default-class", "true");

        harness.delete(PillarStorageClass.class, "fast-nvme");
        await().atMost(ControllerHarness.PATIENCE).until(() -> storageClass("fast-nvme").isEmpty());
    }

    @Test
    void aStorageClassDeletedByHandComesBack() {
        harness.create(Pillars.storageClass("fast-nvme", "tank", "tcp"));
        String uid = await().atMost(ControllerHarness.PATIENCE).until(() -> storageClass("fast-nvme"), Optional::isPresent)
                .orElseThrow().getMetadata().getUid();

        harness.delete(StorageClass.class, "fast-nvme");
        await().atMost(ControllerHarness.PATIENCE).until(() -> storageClass("fast-nvme"),
                s -> s.isPresent() && !s.get().getMetadata().getUid().equals(uid));
    }

    @Test
    void waitsForItsStoreAndProtocol() {
        harness.create(Pillars.storageClass("later", "tank-2", "tcp-2"));
        assertThat(awaitCondition("later", Condition.FALSE, Reasons.STORE_NOT_FOUND).getMessage())
                .isEqualTo("PillarStore tank-2 does not exist");
        harness.create(Pillars.zfsStore("tank-2", "storage-1", "fast", "tank", "k8s"));
        assertThat(awaitCondition("later", Condition.FALSE, Reasons.PROTOCOL_NOT_FOUND).getMessage())
                .isEqualTo("PillarProtocol tcp-2 does not exist");
        assertThat(storageClass("later")).isEmpty();

        harness.create(Pillars.protocol("tcp-2", "192.0.2.10"));
        awaitCondition("later", Condition.TRUE, Reasons.CREATED);
        assertThat(storageClass("later")).isPresent();
    }

    @Test
    void aStorageClassThatIsNotOursIsLeftAlone() {
        harness.create(new StorageClassBuilder().withNewMetadata().withName("standard").endMetadata()
                .withProvisioner("rancher.io/local-path").build());
        harness.create(Pillars.storageClass("standard", "tank", "tcp"));

        assertThat(awaitCondition("standard", Condition.FALSE, Reasons.NAME_CONFLICT).getMessage())
                .contains("not managed by this PillarStorageClass");
        assertThat(storageClass("standard").orElseThrow().getProvisioner()).isEqualTo("rancher.io/local-path");

        harness.delete(PillarStorageClass.class, "standard");
        await().atMost(ControllerHarness.PATIENCE).until(() -> harness.get(PillarStorageClass.class, "standard").isEmpty());
        assertThat(storageClass("standard").orElseThrow().getProvisioner()).isEqualTo("rancher.io/local-path");
    }
}
