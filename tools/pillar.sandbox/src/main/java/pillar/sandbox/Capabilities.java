package pillar.sandbox;

import pillar.api.csi.v1.VolumeCapability;
import pillar.api.csi.v1.VolumeCapability.AccessMode.Mode;

/** Volume capabilities as the sidecars build them from a claim's access mode and volume mode. */
final class Capabilities {
    private Capabilities() {
    }

    /** Filesystem mode with {@code fsType}, or Block for {@link VolumeMode#BLOCK}. */
    static VolumeCapability of(VolumeMode mode, String fsType, Mode access) {
        VolumeCapability.Builder builder = VolumeCapability.newBuilder()
                .setAccessMode(VolumeCapability.AccessMode.newBuilder().setMode(access));
        if (mode.block()) {
            builder.setBlock(VolumeCapability.BlockVolume.getDefaultInstance());
        } else {
            builder.setMount(VolumeCapability.MountVolume.newBuilder().setFsType(fsType));
        }
        return builder.build();
    }

    /** ReadWriteOnce, as Kubernetes 1.24+ sends it (SINGLE_NODE_MULTI_WRITER when the driver says it can; we ask plainly). */
    static VolumeCapability readWriteOnce(VolumeMode mode, String fsType) {
        return of(mode, fsType, Mode.SINGLE_NODE_WRITER);
    }

    /** ReadOnlyMany. */
    static VolumeCapability readOnlyMany(VolumeMode mode, String fsType) {
        return of(mode, fsType, Mode.MULTI_NODE_READER_ONLY);
    }
}
