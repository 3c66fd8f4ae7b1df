package pillar.controller.volume;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import pillar.api.csi.v1.VolumeCapability.AccessMode.Mode;
import pillar.api.csi.v1.VolumeCapability;
import pillar.runtime.server.CsiException;
import pillar.controller.crd.Grammars;
import pillar.controller.crd.PillarVolumeStateSpec.VolumeMode;
import pillar.controller.crd.PillarVolumeStateSpec;

/**
 * The volume capabilities pillar-csi serves: Block, or Filesystem with ext4 or xfs; access modes
 * ReadWriteOnce (SINGLE_NODE_WRITER, SINGLE_NODE_MULTI_WRITER), ReadWriteOncePod
 * (SINGLE_NODE_SINGLE_WRITER), SINGLE_NODE_READER_ONLY and ReadOnlyMany (MULTI_NODE_READER_ONLY).
 * ReadWriteMany (MULTI_NODE_MULTI_WRITER) and MULTI_NODE_SINGLE_WRITER are refused: an NVMe
 * namespace written by two hosts at once corrupts any of these filesystems.
 */
public final class Capabilities {
    /** The filesystems mkfs and mount know on the nodes. */
    static final List<String> FS_TYPES = List.of("ext4", "xfs");
    public static final String DEFAULT_FS_TYPE = "ext4";

    private Capabilities() {
    }

    /** What a CreateVolume asks for: one volume mode, one filesystem, the access modes. */
    public record Requested(VolumeMode mode, Optional<String> fsType, List<String> accessModes) {
    }

    /**
     * The capabilities of a CreateVolume, checked: at least one, all of one volume mode and one
     * filesystem ({@code fallbackFsType} when they name none).
     */
    public static Requested forCreate(List<VolumeCapability> capabilities, String fallbackFsType) {
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
            fsType = Optional.of(fallbackFsType);
        }
        return new Requested(mode.get(), mode.get() == VolumeMode.Block ? Optional.empty() : fsType, List.copyOf(modes));
    }

    /** Checks one capability: an access type, a supported access mode, a known filesystem, sane mount flags. */
    public static void check(VolumeCapability capability) {
        if (!capability.hasBlock() && !capability.hasMount()) {
            throw CsiException.invalid("volume_capability: access_type (block or mount) is required");
        }
        Mode mode = capability.getAccessMode().getMode();
        switch (mode) {
            case SINGLE_NODE_WRITER, SINGLE_NODE_READER_ONLY, MULTI_NODE_READER_ONLY, SINGLE_NODE_SINGLE_WRITER,
                 SINGLE_NODE_MULTI_WRITER -> { }
            case MULTI_NODE_MULTI_WRITER, MULTI_NODE_SINGLE_WRITER -> throw CsiException.invalid("volume_capability: access mode "
                    + mode + " is not supported: an NVMe/TCP volume is written from one node at a time (ReadWriteMany is refused)");
            default -> throw CsiException.invalid("volume_capability: access_mode is required");
        }
        if (capability.hasMount()) {
            String fs = capability.getMount().getFsType();
            if (!fs.isEmpty() && !FS_TYPES.contains(fs)) {
                throw CsiException.invalid("volume_capability: fs_type must be ext4 or xfs, is " + Grammars.printable(fs));
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
        String fs = capability.hasMount() ? capability.getMount().getFsType() : "";
        if (!fs.isEmpty() && !fs.equals(volume.getFsType())) {
            return Optional.of("the volume's filesystem is " + volume.getFsType() + ", not " + fs);
        }
        return Optional.empty();
    }

    /** Whether publications of these two access modes may be on two different nodes at once. */
    static boolean mayShare(String mode, String other) {
        return Mode.MULTI_NODE_READER_ONLY.name().equals(mode) && Mode.MULTI_NODE_READER_ONLY.name().equals(other);
    }
}
