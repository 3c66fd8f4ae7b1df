package pillar.agent.config;

import java.math.BigDecimal;
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
 * @param overProvisioningRatio lvm-thin: how many times its data size the thin pool's thin LVs may add up
 *               to ({@code over-provisioning-ratio}, {@value #RATIO_TEXT} to {@value #MAX_RATIO_TEXT});
 *               1 for every other kind
 */
public record BackendConfig(String name, BackendKind kind, String pool, String parent, BigDecimal overProvisioningRatio) {
    /** The default ratio: no over-provisioning, so the thin volumes can never fill their pool. */
    public static final BigDecimal DEFAULT_RATIO = BigDecimal.ONE;
    /** The largest ratio accepted: beyond it the limit would mean nothing. */
    public static final BigDecimal MAX_RATIO = BigDecimal.valueOf(1000);
    static final String RATIO_TEXT = "1.0";
    static final String MAX_RATIO_TEXT = "1000";

    /** Names zfs and lvm both accept, never starting with '-' (it would read as an option). */
    private static final Pattern POOL_NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_.+-]{0,126}");
    private static final Pattern DATASET_PATH = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_.:-]{0,126}(/[A-Za-z0-9][A-Za-z0-9_.:-]{0,126}){0,15}");
    private static final Pattern LABEL = Pattern.compile("[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?");

    public BackendConfig {
        if (overProvisioningRatio != null) {
            overProvisioningRatio = overProvisioningRatio.stripTrailingZeros(); // 2.50 and 2.5 are one ratio
        }
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
        checkRatio(name, kind, overProvisioningRatio);
    }

    /** A backend of the {@link #DEFAULT_RATIO} (the only one a kind other than lvm-thin has). */
    public BackendConfig(String name, BackendKind kind, String pool, String parent) {
        this(name, kind, pool, parent, DEFAULT_RATIO);
    }

    private static void checkRatio(String name, BackendKind kind, BigDecimal ratio) {
        String key = "backends." + name + ".over-provisioning-ratio";
        if (ratio == null || ratio.compareTo(BigDecimal.ONE) < 0 || ratio.compareTo(MAX_RATIO) > 0) {
            throw new InvalidValueException(key, "must be a decimal number from " + RATIO_TEXT + " (no over-provisioning) to "
                    + MAX_RATIO_TEXT + ", is " + (ratio == null ? "unset" : ratio.toPlainString()));
        }
        if (kind != BackendKind.BACKEND_KIND_LVM_THIN && ratio.compareTo(DEFAULT_RATIO) != 0) {
            throw new InvalidValueException(key, "applies to an lvm-thin backend only");
        }
    }

    /** The wire form, as GetCapabilities reports it. */
    public pillar.api.agent.v1.Backend toProto() {
        return pillar.api.agent.v1.Backend.newBuilder().setName(name).setKind(kind).setPool(pool).setParent(parent).build();
    }
}
