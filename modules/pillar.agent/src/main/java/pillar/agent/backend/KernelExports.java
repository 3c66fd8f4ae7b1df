package pillar.agent.backend;

import java.nio.file.Path;
import java.util.Optional;

/**
 * What the host's kernel servers export now, as an adoption asks before it marks a volume
 * ({@link VolumeBackend#adopt}): an nvmet namespace backed by a block device, an NFS export of a directory.
 * Reads only; a read that fails throws, so that the adoption fails and marks nothing.
 */
public interface KernelExports {
    /** A host without exports: for backend tests and tools that have no target nor NFS server. */
    KernelExports NONE = new KernelExports() {
        @Override
        public Optional<String> device(Path device) {
            return Optional.empty();
        }

        @Override
        public Optional<String> directory(Path directory) {
            return Optional.empty();
        }
    };

    /** What exports block device {@code device} (the same device, whatever path names it), for a message; empty when nothing does. */
    Optional<String> device(Path device);

    /** What exports {@code directory} or a directory below it, for a message; empty when nothing does. */
    Optional<String> directory(Path directory);
}
