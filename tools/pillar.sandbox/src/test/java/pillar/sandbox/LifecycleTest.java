package pillar.sandbox;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;

import org.junit.jupiter.api.Test;

/** CreateVolume's parameters as external-provisioner passes them (with --extra-create-metadata). */
class LifecycleTest {
    @Test
    void theProvisionerDropsItsOwnKeysAndAddsTheClaimsMetadata() {
        Map<String, String> storageClass = Map.of("pillar.csi.io/store", "fast", "pillar.csi.io/protocol", "nvme-tcp",
                "csi.storage.k8s.io/fstype", "xfs");
        assertThat(Lifecycle.provisionerParameters(storageClass, "pvc-1")).isEqualTo(Map.of(
                "pillar.csi.io/store", "fast", "pillar.csi.io/protocol", "nvme-tcp",
                "csi.storage.k8s.io/pvc/name", "sandbox-claim", "csi.storage.k8s.io/pvc/namespace", "default",
                "csi.storage.k8s.io/pv/name", "pvc-1"));
    }
}
