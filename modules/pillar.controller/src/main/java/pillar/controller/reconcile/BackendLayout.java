package pillar.controller.reconcile;

import java.util.Optional;

import pillar.api.agent.v1.Backend;
import pillar.api.agent.v1.BackendKind;
import pillar.controller.crd.LvmStore;
import pillar.controller.crd.PillarStoreSpec;
import pillar.controller.crd.ZfsStore;

/** Compares a store's layout with the agent's backend of the same name: a pure function. */
final class BackendLayout {
    private BackendLayout() {
    }

    /** What differs, in words, or empty when the backend is the store's. The spec is valid. */
    static Optional<String> difference(PillarStoreSpec spec, Backend backend) {
        String expected;
        BackendKind kind;
        String pool;
        String parent;
        if (spec.getZfs() != null) {
            ZfsStore zfs = spec.getZfs();
            kind = zfs.datasets() ? BackendKind.BACKEND_KIND_ZFS_DATASET : BackendKind.BACKEND_KIND_ZFS_ZVOL;
            pool = zfs.getPool();
            parent = zfs.getParentDataset() == null ? "" : zfs.getParentDataset();
            expected = "zfs pool " + pool + (parent.isEmpty() ? "" : ", parent dataset " + parent)
                    + (zfs.datasets() ? " (datasets)" : "");
        } else {
            LvmStore lvm = spec.getLvm();
            kind = lvm.getThinPool() == null ? BackendKind.BACKEND_KIND_LVM_LINEAR : BackendKind.BACKEND_KIND_LVM_THIN;
            pool = lvm.getVolumeGroup();
            parent = lvm.getThinPool() == null ? "" : lvm.getThinPool();
            expected = "lvm volume group " + pool + (parent.isEmpty() ? " (linear)" : ", thin pool " + parent);
        }
        if (backend.getKind() == kind && backend.getPool().equals(pool) && backend.getParent().equals(parent)) {
            return Optional.empty();
        }
        return Optional.of("the store says " + expected + "; the agent's backend " + backend.getName() + " is "
                + describe(backend));
    }

    private static String describe(Backend backend) {
        return switch (backend.getKind()) {
            case BACKEND_KIND_ZFS_ZVOL, BACKEND_KIND_ZFS_DATASET -> "zfs pool " + backend.getPool()
                    + (backend.getParent().isEmpty() ? "" : ", parent dataset " + backend.getParent())
                    + (backend.getKind() == BackendKind.BACKEND_KIND_ZFS_DATASET ? " (datasets)" : "");
            case BACKEND_KIND_LVM_LINEAR -> "lvm volume group " + backend.getPool() + " (linear)";
            case BACKEND_KIND_LVM_THIN -> "lvm volume group " + backend.getPool() + ", thin pool " + backend.getParent();
            default -> "of unknown kind " + backend.getKind();
        };
    }
}
