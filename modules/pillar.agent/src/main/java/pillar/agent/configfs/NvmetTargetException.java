package pillar.agent.configfs;

import java.nio.file.Path;
import java.util.Optional;

/**
 * A change to the NVMe-oF target failed: the kernel refused it, read back a value other than the one
 * written, or the requested change is not allowed in the target's current state. The message names
 * the configfs path, the kernel's error and, where one is known, the likely cause.
 */
public final class NvmetTargetException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final transient Path path;
    private final Errno errno;

    NvmetTargetException(String message, Path path, Errno errno, Throwable cause) {
        super(message, cause);
        this.path = path;
        this.errno = errno;
    }

    NvmetTargetException(String message, Path path) {
        this(message, path, null, null);
    }

    /** The configfs file or directory the failed step touched. */
    public Path path() {
        return path;
    }

    /**
     * Whether a configfs call did not return within its deadline (the kernel is stuck): the agent
     * answers DEADLINE_EXCEEDED, as for a command past its deadline.
     */
    public boolean timedOut() {
        return getCause() instanceof ConfigfsTimeoutException;
    }

    /** The kernel's error, when the kernel refused the step (empty for read-back and state conflicts). */
    public Optional<Errno> errno() {
        return Optional.ofNullable(errno);
    }
}
