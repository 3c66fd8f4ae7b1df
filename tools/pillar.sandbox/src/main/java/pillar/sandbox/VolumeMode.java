package pillar.sandbox;

/**
 * How a pod uses the volume ({@code --fs}): a Filesystem-mode volume with ext4 or xfs, or a raw
 * Block-mode device. The filesystem comes from the generated StorageClass ({@code fsType}), as the
 * external-provisioner passes it; Block ignores it.
 */
enum VolumeMode {
    EXT4("ext4"),
    XFS("xfs"),
    BLOCK("block");

    private final String option;

    VolumeMode(String option) {
        this.option = option;
    }

    static VolumeMode of(String option) {
        for (VolumeMode m : values()) {
            if (m.option.equals(option)) {
                return m;
            }
        }
        throw new IllegalArgumentException("--fs must be ext4, xfs or block, is '" + option + "'");
    }

    boolean block() {
        return this == BLOCK;
    }

    /** The StorageClass fsType this mode asks for (Block keeps the class's ext4, which it does not use). */
    String fsType() {
        return this == XFS ? "xfs" : "ext4";
    }

    @Override
    public String toString() {
        return option;
    }
}
