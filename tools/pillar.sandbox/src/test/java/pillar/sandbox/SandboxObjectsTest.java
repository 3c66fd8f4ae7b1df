package pillar.sandbox;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import org.junit.jupiter.api.Test;

/** The objects the sandbox applies: the quickstart as written, or with the store and fsType of the options. */
class SandboxObjectsTest {
    private static final Path QUICKSTART = Path.of("../../examples/sandbox/quickstart.yaml");

    @Test
    void theQuickstartIsAppliedAsWrittenForItsOwnBackendAndFilesystem() {
        List<GenericKubernetesResource> quickstart = SandboxObjects.load(QUICKSTART);
        assertThat(quickstart).extracting(GenericKubernetesResource::getKind)
                .containsExactly("PillarAgent", "PillarStore", "PillarProtocol", "PillarStorageClass");
        for (VolumeMode mode : List.of(VolumeMode.EXT4, VolumeMode.BLOCK)) {
            List<String> changes = new ArrayList<>();
            List<GenericKubernetesResource> objects = SandboxObjects.forSandbox(quickstart, Backend.LVM_THIN, mode, changes);
            assertThat(changes).isEmpty();
            assertThat(objects).usingRecursiveComparison().isEqualTo(quickstart);
        }
    }

    @Test
    void anotherBackendAndFilesystemChangeTheStoreAndTheClassAndSaySo() {
        List<GenericKubernetesResource> quickstart = SandboxObjects.load(QUICKSTART);
        List<String> changes = new ArrayList<>();
        List<GenericKubernetesResource> objects = SandboxObjects.forSandbox(quickstart, Backend.ZFS, VolumeMode.XFS, changes);
        assertThat(spec(objects, "PillarStore")).isEqualTo(Map.of("agent", "storage-1",
                "zfs", Map.of("pool", "tank", "parentDataset", "k8s", "backend", "tank-k8s")));
        assertThat(spec(objects, "PillarStorageClass")).containsEntry("fsType", "xfs").containsEntry("store", "fast");
        assertThat(changes).hasSize(2).allSatisfy(c -> assertThat(c).containsAnyOf("--backend zfs", "--fs xfs"));
        // the loaded objects themselves are untouched
        assertThat(spec(quickstart, "PillarStore")).containsKey("lvm").doesNotContainKey("zfs");
    }

    @Test
    void theSuiteAddsAStoreAndAClassPerBackendAndFilesystem() {
        GenericKubernetesResource store = SandboxObjects.store("storage-1", Backend.LVM);
        assertThat(store.getMetadata().getName()).isEqualTo("store-lvm");
        assertThat(spec(List.of(store), "PillarStore")).isEqualTo(Map.of("agent", "storage-1",
                "lvm", Map.of("volumeGroup", "sandbox", "backend", "sandbox-linear")));
        GenericKubernetesResource sc = SandboxObjects.storageClass(Backend.LVM, "xfs", "nvme-tcp");
        assertThat(sc.getMetadata().getName()).isEqualTo("pillar-lvm-xfs");
        assertThat(spec(List.of(sc), "PillarStorageClass")).containsEntry("store", "store-lvm")
                .containsEntry("protocol", "nvme-tcp").containsEntry("fsType", "xfs");
    }

    @Test
    @SuppressWarnings("unchecked")
    void theNfsExampleIsAppliedWithoutItsClaimAndWithTheVmsServerAddress() {
        List<GenericKubernetesResource> example = SandboxObjects.load(Path.of("../../examples/sandbox/nfs.yaml"));
        List<String> changes = new ArrayList<>();
        List<GenericKubernetesResource> objects = SandboxObjects.forNfs(example, changes);
        assertThat(objects).extracting(GenericKubernetesResource::getKind)
                .containsExactly("PillarStore", "PillarProtocol", "PillarStorageClass");
        assertThat(spec(objects, "PillarProtocol")).isEqualTo(Map.of("nfs", Map.of("serverAddress", NfsdBed.STORAGE_ADDRESS,
                "version", "4.2")));
        assertThat(spec(objects, "PillarStore")).isEqualTo(spec(example, "PillarStore"));
        assertThat(objects.get(2).getMetadata().getName()).isEqualTo(SandboxObjects.NFS_STORAGE_CLASS);
        assertThat(changes).containsExactly("PillarProtocol/nfs serverAddress set to 10.77.0.1 (the storage node's address"
                + " in the VM)");
        // the bed's agent serves the example's store under the name it gives
        assertThat(NfsdBed.agentBackend()).isEqualTo("{name: tank-nfs, type: zfs-dataset, pool: tank, parent-dataset: nfs}");
        assertThat((Map<String, Object>) spec(objects, "PillarStore").get("zfs")).containsEntry("backend", NfsdBed.AGENT_BACKEND)
                .containsEntry("pool", StoragePools.ZPOOL).containsEntry("parentDataset", NfsdBed.PARENT_NAME);
    }

    @Test
    void everyAgentIsCalledOverMutualTlsWithTheNameInItsCertificate() {
        List<GenericKubernetesResource> quickstart = SandboxObjects.load(QUICKSTART);
        List<GenericKubernetesResource> objects = SandboxObjects.withMutualTls(quickstart);
        assertThat(spec(objects, "PillarAgent")).containsEntry("tls",
                Map.of("mode", "secret", "secretName", "pillar-agent-tls", "serverName", "storage-1.pillar-agent"));
        for (String kind : List.of("PillarStore", "PillarProtocol", "PillarStorageClass")) {
            assertThat(spec(objects, kind)).isEqualTo(spec(quickstart, kind));
        }
        // the quickstart itself dials as a default install serves: mTLS, the chart's Secret and name
        assertThat(spec(quickstart, "PillarAgent")).containsEntry("tls",
                Map.of("mode", "secret", "secretName", "pillar-csi-agent-storage-1-tls", "serverName", "storage-1.pillar-agent"));
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> spec(List<GenericKubernetesResource> objects, String kind) {
        return (Map<String, Object>) objects.stream().filter(o -> o.getKind().equals(kind)).findFirst().orElseThrow()
                .getAdditionalProperties().get("spec");
    }
}
