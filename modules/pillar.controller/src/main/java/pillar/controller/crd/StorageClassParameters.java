package pillar.controller.crd;

import java.util.List;

/**
 * The keys of the parameters of a StorageClass generated from a {@link PillarStorageClass}: the
 * contract between the reconciler that writes them and the CSI Controller service that reads them
 * in CreateVolume (after validating every value again) and freezes the resolved settings on the
 * volume's state. Settings resolve in layers: the store's defaults, then these, then the claim's
 * annotations of the same names, only those {@link #OVERRIDABLE} lists. StorageClass parameters are immutable: a
 * changed PillarStorageClass replaces its StorageClass, and existing volumes keep what they froze.
 */
public final class StorageClassParameters {
    /** The name of the PillarStore volumes of this class are carved from. Always present. */
    public static final String STORE = "pillar.csi.io/store";
    /** The name of the PillarProtocol volumes of this class are exported with. Always present. */
    public static final String PROTOCOL = "pillar.csi.io/protocol";
    /**
     * The filesystem, ext4 or xfs: the key external-provisioner itself reads and passes as the
     * volume capability's fs_type (never in CreateVolume's parameters). Always present.
     */
    public static final String FS_TYPE = "csi.storage.k8s.io/fstype";
    /** The {@link #FS_TYPE} of an NFS class: the kernel's NFSv4 client. */
    public static final String NFS_FS_TYPE = "nfs4";

    /** ZFS: "true" or "false", a zvol without a reservation. Present when set on the PillarStorageClass. */
    public static final String SPARSE = "pillar.csi.io/sparse";
    /** ZFS: the zvol's volblocksize, 4K to 128K ({@link Grammars#VOLBLOCKSIZE}). Present when set. */
    public static final String VOLBLOCKSIZE = "pillar.csi.io/volblocksize";
    /** ZFS: the zvol's compression (on, off, lz4, zstd, gzip, zle). Present when set. */
    public static final String COMPRESSION = "pillar.csi.io/compression";
    /** Extra mkfs options ({@link Grammars#MKFS_OPTIONS}; the node checks its own allow-list). Present when set. */
    public static final String MKFS_OPTIONS = "pillar.csi.io/mkfsOptions";

    /**
     * How a volume restored from a snapshot or cloned from a volume relates to its source: {@code linked}
     * (shares blocks: instant) or {@code independent} (a full copy: no dependency); absent: linked.
     */
    public static final String CLONE_MODE = "pillar.csi.io/cloneMode";
    /**
     * The settings a claim may override by annotation, comma-separated short names in
     * {@link #SETTINGS} order (the PillarStorageClass's {@code overridable}). Present when any is;
     * absent, a claim overrides nothing.
     */
    public static final String OVERRIDABLE = "pillar.csi.io/overridable";

    /**
     * A static PersistentVolume's volume attribute, never a StorageClass parameter: {@code "true"} asks
     * the controller to adopt the existing zvol, dataset or LV its volumeHandle names on its first
     * ControllerPublishVolume (with {@link #STORE}, {@link #PROTOCOL} and optionally {@link #FS_TYPE} beside
     * it). Any other value is INVALID_ARGUMENT; absent, a volume without a state is NOT_FOUND as ever.
     */
    public static final String ADOPT = "pillar.csi.io/adopt";

    /** The prefix of every pillar key, in StorageClass parameters and claim annotations alike. */
    public static final String PREFIX = "pillar.csi.io/";

    /**
     * The settings a PillarStorageClass may set in its {@code parameters} (by these short names)
     * and a claim may override by annotation (with {@link #PREFIX}) when {@link #OVERRIDABLE} lists them.
     */
    public static final List<String> SETTINGS = List.of("sparse", "volblocksize", "compression", "mkfsOptions");

    private StorageClassParameters() {
    }

    /** The parameter key of a setting's short name, e.g. {@code volblocksize}. */
    public static String key(String setting) {
        if (!SETTINGS.contains(setting)) {
            throw new IllegalArgumentException("not a volume setting: " + Grammars.printable(setting) + "; known: " + SETTINGS);
        }
        return PREFIX + setting;
    }
}
