package pillar.controller.reconcile;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import pillar.api.agent.v1.Backend;
import pillar.api.agent.v1.BackendKind;

class BackendLayoutTest {
    private static Backend backend(BackendKind kind, String pool, String parent) {
        return Backend.newBuilder().setName("b").setKind(kind).setPool(pool).setParent(parent).build();
    }

    @Test
    void theSameLayoutHasNoDifference() {
        assertThat(BackendLayout.difference(Pillars.zfsStore("s", "a", "b", "tank", "k8s/v").getSpec(),
                backend(BackendKind.BACKEND_KIND_ZFS_ZVOL, "tank", "k8s/v"))).isEmpty();
        assertThat(BackendLayout.difference(Pillars.zfsStore("s", "a", "b", "tank", null).getSpec(),
                backend(BackendKind.BACKEND_KIND_ZFS_ZVOL, "tank", ""))).isEmpty();
        assertThat(BackendLayout.difference(Pillars.datasetStore("s", "a", "b", "tank", "nfs").getSpec(),
                backend(BackendKind.BACKEND_KIND_ZFS_DATASET, "tank", "nfs"))).isEmpty();
        assertThat(BackendLayout.difference(Pillars.lvmStore("s", "a", "b", "vg0", "thin").getSpec(),
                backend(BackendKind.BACKEND_KIND_LVM_THIN, "vg0", "thin"))).isEmpty();
        assertThat(BackendLayout.difference(Pillars.lvmStore("s", "a", "b", "vg0", null).getSpec(),
                backend(BackendKind.BACKEND_KIND_LVM_LINEAR, "vg0", ""))).isEmpty();
    }

    @Test
    void anyDifferenceIsDescribed() {
        assertThat(BackendLayout.difference(Pillars.zfsStore("s", "a", "b", "tank", "k8s").getSpec(),
                backend(BackendKind.BACKEND_KIND_ZFS_ZVOL, "tank", "other")))
                .contains("the store says zfs pool tank, parent dataset k8s; the agent's backend b is zfs pool tank,"
                        + " parent dataset other");
        assertThat(BackendLayout.difference(Pillars.zfsStore("s", "a", "b", "tank", null).getSpec(),
                backend(BackendKind.BACKEND_KIND_ZFS_ZVOL, "data", ""))).isPresent();
        // the same pool and parent, but datasets where the store says zvols and the other way round
        assertThat(BackendLayout.difference(Pillars.zfsStore("s", "a", "b", "tank", "nfs").getSpec(),
                backend(BackendKind.BACKEND_KIND_ZFS_DATASET, "tank", "nfs")))
                .contains("the store says zfs pool tank, parent dataset nfs; the agent's backend b is zfs pool tank,"
                        + " parent dataset nfs (datasets)");
        assertThat(BackendLayout.difference(Pillars.datasetStore("s", "a", "b", "tank", "nfs").getSpec(),
                backend(BackendKind.BACKEND_KIND_ZFS_ZVOL, "tank", "nfs"))).isPresent();
        assertThat(BackendLayout.difference(Pillars.lvmStore("s", "a", "b", "vg0", null).getSpec(),
                backend(BackendKind.BACKEND_KIND_LVM_THIN, "vg0", "thin")))
                .contains("the store says lvm volume group vg0 (linear); the agent's backend b is lvm volume group vg0,"
                        + " thin pool thin");
    }
}
