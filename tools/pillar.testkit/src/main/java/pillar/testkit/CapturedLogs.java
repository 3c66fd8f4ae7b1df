package pillar.testkit;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.logging.Level;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * The root logger's records while each test runs, one line each (the message and what was thrown): what a
 * test reads to show that no secret reached a log. Register it with {@code @RegisterExtension}.
 */
public final class CapturedLogs implements BeforeEachCallback, AfterEachCallback {
    private final List<String> lines = new ArrayList<>();
    private final Optional<String> everyLevelOf;
    private final Handler handler = new Handler() {
        @Override
        public void publish(LogRecord record) {
            synchronized (lines) {
                lines.add(record.getMessage() + " " + (record.getThrown() == null ? "" : record.getThrown()));
            }
        }

        @Override
        public void flush() {
        }

        @Override
        public void close() {
        }
    };

    /** Records at the loggers' own levels. */
    public CapturedLogs() {
        this.everyLevelOf = Optional.empty();
    }

    /** Records of every level under the logger {@code name} too (e.g. "pillar": FINE lines a secret might reach). */
    public CapturedLogs(String name) {
        this.everyLevelOf = Optional.of(name);
    }

    @Override
    public void beforeEach(ExtensionContext context) {
        everyLevelOf.ifPresent(name -> {
            handler.setLevel(Level.ALL);
            Logger.getLogger(name).setLevel(Level.ALL);
        });
        Logger.getLogger("").addHandler(handler);
    }

    @Override
    public void afterEach(ExtensionContext context) {
        Logger.getLogger("").removeHandler(handler);
    }

    /** The lines captured so far. */
    public List<String> lines() {
        synchronized (lines) {
            return List.copyOf(lines);
        }
    }
}
