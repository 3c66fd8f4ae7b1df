package pillar.node.attach;

import java.nio.file.Path;

import pillar.node.mount.MountEntry;

/**
 * What an {@link Attacher} yields: a block device for the shared code to format and mount, or a
 * mount already in place (a network filesystem, which has no device).
 */
public sealed interface Attachment {
    /**
     * A block device of the volume.
     *
     * @param link the kernel's name of the connection it came by ({@code nvme3}), as a stage record keeps it
     * @param node the device node ({@code /dev/nvme3n1})
     */
    record Device(String link, Path node) implements Attachment {
    }

    /** The volume's filesystem mounted, as the mount table shows it. */
    record Mount(MountEntry entry) implements Attachment {
    }
}
