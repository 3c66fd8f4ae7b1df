package pillar.controller.volume.request;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import pillar.api.csi.v1.VolumeCapability.AccessMode.Mode;
import pillar.api.csi.v1.VolumeCapability;
import pillar.runtime.server.CsiException;
import pillar.controller.crd.Grammars;
import pillar.controller.crd.ProtocolKind;
import pillar.controller.crd.PillarVolumeStateSpec.VolumeMode;
import pillar.controller.crd.PillarVolumeStateSpec;
import pillar.controller.crd.StorageClassParameters;

/**
 * The volume capabilities pillar-csi serves, per protocol. NVMe-oF/TCP: Block, or Filesystem with
 * ext4 or xfs; ReadWriteOnce (SINGLE_NODE_WRITER, SINGLE_NODE_MULTI_WRITER), ReadWriteOncePod
 * (SINGLE_NODE_SINGLE_WRITER), SINGLE_NODE_READER_ONLY and ReadOnlyMany (MULTI_NODE_READER_ONLY);
 * never ReadWriteMany: a namespace written by two hosts at once corrupts any of these filesystems.
 * NFS: Filesystem only (nfs4), every one of those access modes and ReadWriteMany
 * (MULTI_NODE_MULTI_WRITER). MULTI_NODE_SINGLE_WRITER (no Kubernetes access mode) is refused on both.
 * {@link #check} takes what either protocol serves; {@link #fit} and {@link #mismatch} decide per volume.
 */
public final class Capabilities {
    /** The filesystems mkfs and mount know on the nodes. */
    public static final List<String> FS_TYPES = List.of("ext4", "xfs");
    /** The fs_type names of an NFS mount; recorded as {@value StorageClassParameters#NFS_FS_TYPE}. */
    public static final List<String> NFS_FS_TYPES = List.of(StorageClassParameters.NFS_FS_TYPE, "nfs");
    public static final String DEFAULT_FS_TYPE = "ext4";

    private Capabilities() {
    }

    /** What a CreateVolume asks for: one volume mode, one filesystem (empty: not named), the access modes. */
    public record Requested(VolumeMode mode, Optional<String> fsType, List<String> accessModes) {
    }

    /**
     * The capabilities of a CreateVolume, checked: at least one, all of one volume mode and one
     * filesystem ({@code classFsType} when they name none, else none yet: {@link #fit} picks it).
     */
    public static Requested forCreate(List<VolumeCapability> capabilities, Optional<String> classFsType) {
        if (capabilities.isEmpty()) {
            throw CsiException.invalid("volume_capabilities: at least one is required");
        }
        Optional<VolumeMode> mode = Optional.empty();
        Optional<String> fsType = Optional.empty();
        List<String> modes = new ArrayList<>();
        for (VolumeCapability capability : capabilities) {
            check(capability);
            VolumeMode m = capability.hasBlock() ? VolumeMode.Block : VolumeMode.Filesystem;
            if (mode.isPresent() && mode.get() != m) {
                throw CsiException.invalid("volume_capabilities: a volume is either Block or Filesystem, not both");
            }
            mode = Optional.of(m);
            if (m == VolumeMode.Filesystem && !capability.getMount().getFsType().isEmpty()) {
                String fs = capability.getMount().getFsType();
                if (fsType.isPresent() && !fsType.get().equals(fs)) {
                    throw CsiException.invalid("volume_capabilities: one filesystem per volume, not " + fsType.get() + " and " + fs);
                }
                fsType = Optional.of(fs);
            }
            String name = capability.getAccessMode().getMode().name();
            if (!modes.contains(name)) {
                modes.add(name);
            }
        }
        if (mode.get() == VolumeMode.Filesystem && fsType.isEmpty()) {
            fsType = classFsType;
        }
        return new Requested(mode.get(), mode.get() == VolumeMode.Block ? Optional.empty() : fsType, List.copyOf(modes));
    }

    /**
     * The request as a volume of {@code protocol} serves it, its filesystem named (ext4 by default,
     * nfs4 for NFS); INVALID_ARGUMENT when the protocol cannot serve it.
     */
    public static Requested fit(Requested requested, ProtocolKind protocol) {
        if (protocol == ProtocolKind.NFS) {
            if (requested.mode() == VolumeMode.Block) {
                throw CsiException.invalid("volume_capabilities: an NFS volume is a filesystem; Block mode needs an nvmeofTcp protocol");
            }
            String fs = requested.fsType().orElse(StorageClassParameters.NFS_FS_TYPE);
            if (!NFS_FS_TYPES.contains(fs)) {
                throw CsiException.invalid("volume_capabilities: the fs_type of an NFS volume is nfs4, not " + Grammars.printable(fs));
            }
            return new Requested(requested.mode(), Optional.of(StorageClassParameters.NFS_FS_TYPE), requested.accessModes());
        }
        for (String mode : requested.accessModes()) {
            if (Mode.MULTI_NODE_MULTI_WRITER.name().equals(mode)) {
                throw CsiException.invalid("volume_capabilities: access mode " + mode + " (ReadWriteMany) is not served over"
                        + " NVMe-oF/TCP, whose volumes are written from one node at a time: use an nfs protocol");
            }
        }
        if (requested.mode() == VolumeMode.Block) {
            return requested;
        }
        String fs = requested.fsType().orElse(DEFAULT_FS_TYPE);
        if (!FS_TYPES.contains(fs)) {
            throw CsiException.invalid("volume_capabilities: fs_type must be ext4 or xfs, is " + Grammars.printable(fs));
        }
        return new Requested(requested.mode(), Optional.of(fs), requested.accessModes());
    }

    /** Checks one capability: an access type, a served access mode, a known filesystem, sane mount flags. */
    public static void check(VolumeCapability capability) {
        if (!capability.hasBlock() && !capability.hasMount()) {
            throw CsiException.invalid("volume_capability: access_type (block or mount) is required");
        }
        Mode mode = capability.getAccessMode().getMode();
        switch (mode) {
            case SINGLE_NODE_WRITER, SINGLE_NODE_READER_ONLY, MULTI_NODE_READER_ONLY, SINGLE_NODE_SINGLE_WRITER,
                 SINGLE_NODE_MULTI_WRITER, MULTI_NODE_MULTI_WRITER -> { }
            case MULTI_NODE_SINGLE_WRITER -> throw CsiException.invalid("volume_capability: access mode " + mode
                    + " is not supported (ReadWriteMany is MULTI_NODE_MULTI_WRITER, on NFS volumes)");
            default -> throw CsiException.invalid("volume_capability: access_mode is required");
        }
        if (capability.hasMount()) {
            String fs = capability.getMount().getFsType();
            if (!fs.isEmpty() && !FS_TYPES.contains(fs) && !NFS_FS_TYPES.contains(fs)) {
                throw CsiException.invalid("volume_capability: fs_type must be ext4, xfs or (NFS) nfs4, is " + Grammars.printable(fs));
            }
            List<String> flags = capability.getMount().getMountFlagsList();
            if (flags.size() > 32) {
                throw CsiException.invalid("volume_capability: at most 32 mount_flags");
            }
            for (String flag : flags) {
                if (!Grammars.matches(Grammars.MOUNT_OPTION, flag)) {
                    throw CsiException.invalid("volume_capability: mount flag " + Grammars.printable(flag)
                            + " is not one mount option (letters, digits and _.=:+/-)");
                }
            }
        }
    }

    /** Why a (checked) capability does not fit the volume, or empty when it does. */
    public static Optional<String> mismatch(VolumeCapability capability, PillarVolumeStateSpec volume) {
        VolumeMode mode = capability.hasBlock() ? VolumeMode.Block : VolumeMode.Filesystem;
        if (mode != volume.getVolumeMode()) {
            return Optional.of("the volume is " + volume.getVolumeMode() + ", not " + mode);
        }
        boolean nfs = nfs(volume);
        String fs = capability.hasMount() ? capability.getMount().getFsType() : "";
        if (nfs ? !fs.isEmpty() && !NFS_FS_TYPES.contains(fs) : !fs.isEmpty() && !fs.equals(volume.getFsType())) {
            return Optional.of("the volume's filesystem is " + volume.getFsType() + ", not " + fs);
        }
        if (!nfs && capability.getAccessMode().getMode() == Mode.MULTI_NODE_MULTI_WRITER) {
            return Optional.of("the volume is served over NVMe-oF/TCP, written from one node at a time: not MULTI_NODE_MULTI_WRITER");
        }
        if (!nfs && volume.getExport() != null) {
            return unfenced(volume.getExport().getAclEnabled(), List.of(capability.getAccessMode().getMode().name()));
        }
        return Optional.empty();
    }

    /**
     * Why a volume of an NVMe-oF/TCP protocol with {@code aclEnabled: false} cannot serve these access
     * modes, or empty: its target admits any host and so cannot fence one, and a single-node mode
     * (all but ReadOnlyMany) relies on the fence when the volume moves to another node. INVALID_ARGUMENT
     * to the caller: the class can never serve it, a retry cannot succeed (FAILED_PRECONDITION would say
     * that a change of the volume's state could).
     */
    public static Optional<String> unfenced(Boolean aclEnabled, List<String> accessModes) {
        if (!Boolean.FALSE.equals(aclEnabled)) {
            return Optional.empty();
        }
        return accessModes.stream().filter(m -> !Mode.MULTI_NODE_READER_ONLY.name().equals(m)).findFirst()
                .map(m -> "access mode " + m + " is single-node, and the volume's protocol has aclEnabled: false: its target"
                        + " admits any host and cannot fence a node, so only MULTI_NODE_READER_ONLY (ReadOnlyMany) is served;"
                        + " use a protocol with aclEnabled: true");
    }

    /**
     * Whether a publication may only read: the CO asked it {@code readonly} (ControllerPublishVolume's field, which
     * CSI says the SP MUST publish read-only) or its access mode is a reader-only one (ReadOnlyMany,
     * SINGLE_NODE_READER_ONLY). An NFS export admits such a node read-only.
     */
    public static boolean readOnly(String mode, boolean readonly) {
        return readonly || Mode.MULTI_NODE_READER_ONLY.name().equals(mode) || Mode.SINGLE_NODE_READER_ONLY.name().equals(mode);
    }

    /** Whether a publication of this access mode gets the export to itself: every NVMe-oF mode but ReadOnlyMany. */
    public static boolean exclusive(String mode, boolean nfs) {
        return !nfs && !Mode.MULTI_NODE_READER_ONLY.name().equals(mode);
    }

    /**
     * Whether publications of these two access modes may be on two different nodes at once: on
     * NVMe-oF/TCP only two ReadOnlyMany ones, on NFS any two multi-node ones (ReadWriteMany, ReadOnlyMany).
     */
    public static boolean mayShare(String mode, String other, boolean nfs) {
        if (nfs) {
            return multiNode(mode) && multiNode(other);
        }
        return Mode.MULTI_NODE_READER_ONLY.name().equals(mode) && Mode.MULTI_NODE_READER_ONLY.name().equals(other);
    }

    /** Whether the volume is an NFS export (its frozen export says so). */
    public static boolean nfs(PillarVolumeStateSpec volume) {
        return volume.getExport() != null && volume.getExport().nfs();
    }

    private static boolean multiNode(String mode) {
        return Mode.MULTI_NODE_READER_ONLY.name().equals(mode) || Mode.MULTI_NODE_MULTI_WRITER.name().equals(mode);
    }
}
