package pillar.controller.csi.auth;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Collection;

import io.fabric8.kubernetes.client.utils.Serialization;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import pillar.controller.csi.CsiHarness;
import pillar.controller.reconcile.ControllerHarness;
import pillar.testkit.CapturedLogs;

/**
 * Captures every log record of a test (pillar's at every level) and checks that no secret value reached
 * one, nor an event or a volume state: {@code @RegisterExtension final SecretLeaks leaks = new SecretLeaks();}.
 */
final class SecretLeaks implements BeforeEachCallback, AfterEachCallback {
    private final CapturedLogs logs = new CapturedLogs("pillar");

    @Override
    public void beforeEach(ExtensionContext context) {
        logs.beforeEach(context);
    }

    @Override
    public void afterEach(ExtensionContext context) {
        logs.afterEach(context);
    }

    /** No log record so far, no event and no volume state of {@code harness} holds any of {@code secrets}. */
    void assertNowhere(CsiHarness harness, Collection<String> secrets) {
        String events = Serialization.asJson(harness.client().v1().events().inNamespace(ControllerHarness.NAMESPACE).list()
                .getItems());
        String states = Serialization.asJson(harness.states());
        String lines = String.join("\n", logs.lines());
        assertThat(lines).as("captured log records").isNotEmpty();
        for (String secret : secrets) {
            assertThat(lines).doesNotContain(secret);
            assertThat(events).doesNotContain(secret);
            assertThat(states).doesNotContain(secret);
        }
    }
}
