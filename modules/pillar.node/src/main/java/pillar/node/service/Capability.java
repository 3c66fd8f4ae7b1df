package pillar.node.service;

import java.util.List;
import java.util.Optional;

import pillar.api.csi.v1.VolumeCapability;
import pillar.api.csi.v1.VolumeCapability.AccessMode.Mode;
import pillar.api.value.InvalidValueException;
import pillar.node.fs.FsType;
import pillar.node.mount.MountOptions;
import pillar.runtime.server.CsiException;

/**
 * A request's volume capability, validated: Block, or a filesystem from the allow-list with
 * allow-listed mount flags; and an access mode pillar-csi serves. Missing or malformed parts are
 * INVALID_ARGUMENT; a multi-node writer mode "exceeds the capabilities" of every pillar-csi volume
 * and is FAILED_PRECONDITION, as the spec puts it for NodeStage and NodePublish.
 *
 * <p>An NFS volume's capability ({@link #parseNfs}) is a mount of fs_type "", "nfs" or "nfs4" with
 * per-mount flags only, and may be written from many nodes (a shared filesystem is what NFS is for).
 *
 * @param fsType the filesystem, or empty for Block and for NFS
 * @param nfs    whether the volume is an NFS export (then {@code fsType} is empty)
 */
public record Capability(Optional<FsType> fsType, MountOptions mountOptions, Mode accessMode, boolean nfs) {
    private static final java.util.Set<String> NFS_TYPES = java.util.Set.of("", "nfs", "nfs4");

    public Capability(Optional<FsType> fsType, MountOptions mountOptions, Mode accessMode) {
        this(fsType, mountOptions, accessMode, false);
    }

    /** Parses the capability of a request on an NFS volume: a mount, never Block (INVALID_ARGUMENT). */
    public static Capability parseNfs(boolean present, VolumeCapability capability) {
        if (!present) {
            throw CsiException.invalid("volume_capability is required");
        }
        Mode mode = capability.getAccessMode().getMode();
        switch (mode) {
            case SINGLE_NODE_WRITER, SINGLE_NODE_READER_ONLY, MULTI_NODE_READER_ONLY, SINGLE_NODE_SINGLE_WRITER,
                 SINGLE_NODE_MULTI_WRITER, MULTI_NODE_SINGLE_WRITER, MULTI_NODE_MULTI_WRITER -> { }
            default -> throw CsiException.invalid("volume_capability.access_mode is required");
        }
        if (capability.getAccessTypeCase() != VolumeCapability.AccessTypeCase.MOUNT) {
            throw CsiException.invalid("volume_capability: an NFS volume is a filesystem; Block access is not supported");
        }
        VolumeCapability.MountVolume mount = capability.getMount();
        if (!mount.getVolumeMountGroup().isEmpty()) {
            throw CsiException.invalid("volume_capability.mount.volume_mount_group is not supported "
                    + "(the node does not advertise VOLUME_MOUNT_GROUP)");
        }
        if (!NFS_TYPES.contains(mount.getFsType())) {
            throw CsiException.invalid("volume_capability: fs_type of an NFS volume must be empty, nfs or nfs4");
        }
        try {
            return new Capability(Optional.empty(), MountOptions.parseForNfs(mount.getMountFlagsList()), mode, true);
        } catch (InvalidValueException e) {
            throw CsiException.invalid("volume_capability: " + e.getMessage());
        }
    }

    /** Parses the capability of a request; {@code present} is the request's {@code has...} for the field. */
    public static Capability parse(boolean present, VolumeCapability capability) {
        if (!present) {
            throw CsiException.invalid("volume_capability is required");
        }
        Mode mode = capability.getAccessMode().getMode();
        switch (mode) {
            case SINGLE_NODE_WRITER, SINGLE_NODE_READER_ONLY, MULTI_NODE_READER_ONLY, SINGLE_NODE_SINGLE_WRITER,
                 SINGLE_NODE_MULTI_WRITER -> { }
            case MULTI_NODE_SINGLE_WRITER, MULTI_NODE_MULTI_WRITER -> throw CsiException.precondition(
                    "access mode " + mode + " is not supported: a pillar-csi volume is written from one node only");
            default -> throw CsiException.invalid("volume_capability.access_mode is required");
        }
        try {
            return switch (capability.getAccessTypeCase()) {
                case BLOCK -> new Capability(Optional.empty(), MountOptions.NONE, mode);
                case MOUNT -> {
                    VolumeCapability.MountVolume mount = capability.getMount();
                    if (!mount.getVolumeMountGroup().isEmpty()) {
                        throw CsiException.invalid("volume_capability.mount.volume_mount_group is not supported "
                                + "(the node does not advertise VOLUME_MOUNT_GROUP)");
                    }
                    FsType fsType = FsType.parse(mount.getFsType());
                    yield new Capability(Optional.of(fsType), MountOptions.parse(mount.getMountFlagsList(), fsType), mode);
                }
                default -> throw CsiException.invalid("volume_capability needs an access type: block or mount");
            };
        } catch (InvalidValueException e) {
            throw CsiException.invalid("volume_capability: " + e.getMessage());
        }
    }

    public boolean block() {
        return fsType.isEmpty() && !nfs;
    }

    /** A reader-only mode: every mount of the volume is read-only, whatever the request's readonly flag says. */
    public boolean readerOnly() {
        return accessMode == Mode.SINGLE_NODE_READER_ONLY || accessMode == Mode.MULTI_NODE_READER_ONLY;
    }

    /** The mount flags in their canonical order, as the stage record keeps them. */
    public List<String> flags() {
        return mountOptions.canonical();
    }

    /** For messages: "ext4 [noatime]" or "block". */
    public String describe() {
        String kind = nfs ? "nfs4" : fsType.map(Object::toString).orElse("block");
        return (block() || flags().isEmpty() ? kind : kind + " " + flags()) + " " + accessMode;
    }
}
