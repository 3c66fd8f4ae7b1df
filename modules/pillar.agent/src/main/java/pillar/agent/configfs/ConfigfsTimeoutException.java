package pillar.agent.configfs;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;

/** A configfs call that did not return within its deadline: the kernel is stuck on that path. */
final class ConfigfsTimeoutException extends IOException {
    private static final long serialVersionUID = 1L;

    ConfigfsTimeoutException(String what, Path path, Duration deadline) {
        super(what + " " + path + " did not return within " + deadline.toMillis() + " ms: the kernel is stuck"
                + " there (a hung backing device or a controller being torn down; dmesg tells)");
    }

    /** A call refused before it reached the kernel, for the reason given. */
    ConfigfsTimeoutException(String message) {
        super(message);
    }
}
