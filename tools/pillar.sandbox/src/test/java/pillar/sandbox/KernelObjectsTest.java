package pillar.sandbox;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import java.util.TreeMap;

import org.junit.jupiter.api.Test;

/** What a step changed: added, removed and changed objects, one line each, in key order. */
class KernelObjectsTest {
    @Test
    void changesAreAddedRemovedAndChangedObjects() {
        KernelObjects before = new KernelObjects(new TreeMap<>(Map.of(
                "LV sandbox/pvc-1", "320 MiB",
                "nvmet subsystem nqn.2024-06.io.pillar-csi:pvc-1", "",
                "mount /var/lib/kubelet/x", "ext4 /dev/nvme0n1 rw")));
        KernelObjects after = new KernelObjects(new TreeMap<>(Map.of(
                "LV sandbox/pvc-1", "640 MiB",
                "nvmet subsystem nqn.2024-06.io.pillar-csi:pvc-1", "",
                "/dev/nvme0n1", "640 MiB, nqn.2024-06.io.pillar-csi:pvc-1")));
        assertThat(after.changesSince(before)).containsExactly(
                "+ /dev/nvme0n1  640 MiB, nqn.2024-06.io.pillar-csi:pvc-1",
                "~ LV sandbox/pvc-1  320 MiB -> 640 MiB",
                "- mount /var/lib/kubelet/x");
        assertThat(after.changesSince(after)).isEmpty();
        assertThat(after.keysStartingWith("nvmet subsystem ")).containsExactly("nvmet subsystem nqn.2024-06.io.pillar-csi:pvc-1");
    }

    @Test
    void nfsExportsAreReadFromEtabOneObjectPerPathAndClient() {
        Map<String, String> objects = new TreeMap<>();
        KernelObjects.nfsExports(objects, java.util.List.of(
                "/pillar-nfs/pvc-1\t10.77.1.2(rw,sync,wdelay,hide,nocrossmnt,secure,no_root_squash,no_all_squash,"
                        + "no_subtree_check,secure_locks,acl,no_pnfs,fsid=0f8e2b1c-5a5e-5b3c-9d1e-000000000001,anonuid=65534,"
                        + "anongid=65534,sec=sys,rw,secure,no_root_squash,no_all_squash)",
                "/pillar-nfs/pvc-1\t10.77.2.2(ro,sync,fsid=0f8e2b1c-5a5e-5b3c-9d1e-000000000001)",
                "", "a line that is no export"));
        assertThat(objects).containsExactly(
                Map.entry("NFS export /pillar-nfs/pvc-1 to 10.77.1.2", "rw, fsid=0f8e2b1c-5a5e-5b3c-9d1e-000000000001"),
                Map.entry("NFS export /pillar-nfs/pvc-1 to 10.77.2.2", "ro, fsid=0f8e2b1c-5a5e-5b3c-9d1e-000000000001"));
    }

    @Test
    void onAHostWithoutNvmetTheSnapshotStillReads() {
        // the build machine has no configfs: nothing of nvmet, and no failure either
        assertThat(KernelObjects.read(java.util.List.of(java.nio.file.Path.of("/nonexistent-kubelet"))).objects())
                .noneSatisfy((key, value) -> assertThat(key).startsWith("nvmet"));
    }
}
