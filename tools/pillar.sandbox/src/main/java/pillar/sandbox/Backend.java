package pillar.sandbox;

import java.util.Locale;
import java.util.Map;

/**
 * The three kinds of store the sandbox offers, each on the pools {@link StoragePools} creates: its
 * option name ({@code --backend}), the agent's backend for it, and the {@code spec} of its PillarStore.
 */
enum Backend {
    LVM("lvm", "sandbox-linear"),
    LVM_THIN("lvm-thin", "sandbox-thin"),
    ZFS("zfs", "tank-k8s");

    private final String option;
    private final String agentBackend;

    Backend(String option, String agentBackend) {
        this.option = option;
        this.agentBackend = agentBackend;
    }

    /** The value of {@code --backend}; fails naming the valid ones. */
    static Backend of(String option) {
        for (Backend b : values()) {
            if (b.option.equals(option)) {
                return b;
            }
        }
        throw new IllegalArgumentException("--backend must be lvm, lvm-thin or zfs, is '" + option + "'");
    }

    String option() {
        return option;
    }

    /** The name of the agent's backend (agent configuration) that serves it. */
    String agentBackend() {
        return agentBackend;
    }

    /** The PillarStore's {@code spec.lvm} or {@code spec.zfs} for this backend. */
    Map<String, Object> storeLayout() {
        return switch (this) {
            case LVM -> Map.of("lvm", Map.of("volumeGroup", StoragePools.VG, "backend", agentBackend));
            case LVM_THIN -> Map.of("lvm", Map.of("volumeGroup", StoragePools.VG, "thinPool", StoragePools.THIN_POOL,
                    "backend", agentBackend));
            case ZFS -> Map.of("zfs", Map.of("pool", StoragePools.ZPOOL, "parentDataset", StoragePools.ZFS_PARENT,
                    "backend", agentBackend));
        };
    }

    @Override
    public String toString() {
        return option.toLowerCase(Locale.ROOT);
    }
}
