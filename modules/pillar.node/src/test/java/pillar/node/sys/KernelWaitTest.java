package pillar.node.sys;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;

/** A bounded wait: results and errors pass through; a hung call fails at its deadline and blocks only its key. */
class KernelWaitTest {
    private static final Duration DEADLINE = Duration.ofMillis(300);
    private final KernelWait wait = new KernelWait(DEADLINE);
    private final Hangs hangs = new Hangs();

    @Test
    void resultsAndErrorsPassThrough() {
        assertThat(wait.call("a", "the answer", () -> 42)).isEqualTo(42);
        SyscallException refused = new SyscallException("mount", "/x", Errno.EBUSY);
        assertThatThrownBy(() -> wait.run("a", "the mount", () -> {
            throw refused;
        })).isSameAs(refused);
        assertThat(wait.stuckCount()).isZero();
    }

    @Test
    void aHungCallFailsAtItsDeadlineAndItsKeyRefusesUntilItReturns() throws Exception {
        Hangs.Hang hang = hangs.on("a");
        AtomicInteger started = new AtomicInteger();
        long t0 = System.nanoTime();
        assertThatThrownBy(() -> wait.run("a", "the mount of /dev/x at /a", () -> {
            started.incrementAndGet();
            hangs.pass("a");
        })).isInstanceOfSatisfying(StuckInKernelException.class, e -> assertThat(e.stillStuck()).isFalse())
                .hasMessageContaining("the mount of /dev/x at /a did not return within 300 ms");
        long ms = (System.nanoTime() - t0) / 1_000_000;
        assertThat(ms).isBetween(DEADLINE.toMillis(), DEADLINE.toMillis() + 5_000);
        assertThat(wait.stuckCount()).isEqualTo(1);

        // a retry on the stuck key starts nothing; another key goes on
        assertThatThrownBy(() -> wait.run("a", "the unmount of /a", started::incrementAndGet))
                .isInstanceOfSatisfying(StuckInKernelException.class, e -> assertThat(e.stillStuck()).isTrue())
                .hasMessageContaining("not starting the unmount of /a: the mount of /dev/x at /a, started at");
        assertThat(started).hasValue(1);
        assertThat(hang.callers()).isEqualTo(1);
        assertThat(wait.call("b", "another", () -> "fine")).isEqualTo("fine");

        hang.release();
        Hangs.awaitNothingStuck(wait, Duration.ofSeconds(10));
        assertThat(wait.call("a", "the retry", () -> "done")).isEqualTo("done");
    }

    @Test
    void theDeadlineMustBePositive() {
        assertThatThrownBy(() -> new KernelWait(Duration.ZERO)).isInstanceOf(IllegalArgumentException.class);
    }
}
