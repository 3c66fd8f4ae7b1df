package pillar.controller.csi.auth;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

import io.fabric8.kubernetes.client.utils.Serialization;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import pillar.controller.csi.CsiHarness;
import pillar.controller.reconcile.ControllerHarness;

/**
 * Captures every log record of a test (pillar's at every level) and checks that no secret value reached
 * one, nor an event or a volume state: {@code @RegisterExtension final SecretLeaks leaks = new SecretLeaks();}.
 */
final class SecretLeaks implements BeforeEachCallback, AfterEachCallback {
    private final List<String> logged = new ArrayList<>();
    private final Handler capture = new Handler() {
        @Override
        public void publish(LogRecord record) {
            synchronized (logged) {
                logged.add(String.valueOf(record.getMessage()) + " " + String.valueOf(record.getThrown()));
            }
        }

        @Override
        public void flush() {
        }

        @Override
        public void close() {
        }
    };

    @Override
    public void beforeEach(ExtensionContext context) {
        capture.setLevel(Level.ALL);
        Logger.getLogger("").addHandler(capture);
        Logger.getLogger("pillar").setLevel(Level.ALL);
    }

    @Override
    public void afterEach(ExtensionContext context) {
        Logger.getLogger("").removeHandler(capture);
    }

    /** No log record so far, no event and no volume state of {@code harness} holds any of {@code secrets}. */
    void assertNowhere(CsiHarness harness, Collection<String> secrets) {
        String events = Serialization.asJson(harness.client().v1().events().inNamespace(ControllerHarness.NAMESPACE).list()
                .getItems());
        String states = Serialization.asJson(harness.states());
        String logs;
        synchronized (logged) {
            logs = String.join("\n", logged);
        }
        assertThat(logs).as("captured log records").isNotEmpty();
        for (String secret : secrets) {
            assertThat(logs).doesNotContain(secret);
            assertThat(events).doesNotContain(secret);
            assertThat(states).doesNotContain(secret);
        }
    }
}
