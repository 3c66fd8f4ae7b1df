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
 * @param fsType the filesystem, or empty for Block
 */
public record Capability(Optional<FsType> fsType, MountOptions mountOptions, Mode accessMode) {

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
        return fsType.isEmpty();
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
        return fsType.map(t -> t + (flags().isEmpty() ? "" : " " + flags())).orElse("block") + " " + accessMode;
    }
}
