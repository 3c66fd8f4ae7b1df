package pillar.agent.config;

import java.util.regex.Pattern;

import pillar.api.agent.v1.BackendKind;
import pillar.api.value.InvalidValueException;

/**
 * One storage backend of this agent, from its configuration file: a ZFS parent dataset (of zvols, or
 * of filesystem datasets for NFS), an LVM volume group, or an LVM thin pool. PillarStore objects refer to it by {@link #name()}.
 *
 * @param name   how stores refer to it: an RFC 1123 label
 * @param kind   zfs, zfs-dataset, lvm or lvm-thin
 * @param pool   the ZFS pool or the LVM volume group
 * @param parent the ZFS parent dataset below the pool ("" for the pool itself), or the LVM thin pool
 */
public record BackendConfig(String name, BackendKind kind, String pool, String parent) {
    /** Names zfs and lvm both accept, never starting with '-' (it would read as an option). */
    private static final Pattern POOL_NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_.+-]{0,126}");
    private static final Pattern DATASET_PATH = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_.:-]{0,126}(/[A-Za-z0-9][A-Za-z0-9_.:-]{0,126}){0,15}");
    private static final Pattern LABEL = Pattern.compile("[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?");

    public BackendConfig {
        if (name == null || !LABEL.matcher(name).matches()) {
            throw new InvalidValueException("backends.name", "must be an RFC 1123 label (a-z, 0-9, '-'), is '" + name + "'");
        }
        if (pool == null || !POOL_NAME.matcher(pool).matches()) {
            throw new InvalidValueException("backends." + name + ".pool",
                    "must be a ZFS pool or LVM volume group name (letters, digits, '_', '.', '+', '-')");
        }
        switch (kind) {
            case BACKEND_KIND_ZFS_ZVOL, BACKEND_KIND_ZFS_DATASET -> {
                if (!parent.isEmpty() && !DATASET_PATH.matcher(parent).matches()) {
                    throw new InvalidValueException("backends." + name + ".parent-dataset",
                            "must be a dataset path below the pool, like k8s or k8s/volumes");
                }
            }
            case BACKEND_KIND_LVM_LINEAR -> {
                if (!parent.isEmpty()) {
                    throw new InvalidValueException("backends." + name, "an lvm backend has no thin pool; use type lvm-thin");
                }
            }
            case BACKEND_KIND_LVM_THIN -> {
                if (!POOL_NAME.matcher(parent).matches()) {
                    throw new InvalidValueException("backends." + name + ".thin-pool", "must name the thin pool LV");
                }
            }
            default -> throw new InvalidValueException("backends." + name + ".type", "must be zfs, zfs-dataset, lvm or lvm-thin");
        }
    }

    /** The wire form, as GetCapabilities reports it. */
    public pillar.api.agent.v1.Backend toProto() {
        return pillar.api.agent.v1.Backend.newBuilder().setName(name).setKind(kind).setPool(pool).setParent(parent).build();
    }
}
