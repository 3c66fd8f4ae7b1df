package pillar.runtime.exec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongPredicate;

import org.junit.jupiter.api.Test;

/** {@link SystemProcessRunner#relay} against real programs: bytes through this process, a stop, a stall, a failure. */
class SystemProcessRunnerRelayTest {
    private static final long MIB = 1L << 20;
    private static final Duration LONG = Duration.ofSeconds(30);

    private final ProcessRunner runner = new SystemProcessRunner();

    @Test
    void everyByteOfTheFirstReachesTheSecondAndIsCounted() {
        Flow flow = new Flow(bytes -> false);
        ProcessRunner.Relayed relayed = runner.relay(Command.of(LONG, "head", "-c", String.valueOf(5 * MIB), "/dev/zero"),
                Command.of(LONG, "wc", "-c"), flow);
        assertThat(relayed).isEqualTo(new ProcessRunner.Relayed(5 * MIB, false));
        assertThat(flow.last.get()).isEqualTo(5 * MIB);
    }

    /** An endless pipe ends once the flow stops it, both programs gone; the bytes that passed are reported. */
    @Test
    void aStopEndsThePipeAndLeavesNoChild() {
        Flow flow = new Flow(bytes -> bytes >= 8 * MIB);
        ProcessRunner.Relayed relayed = runner.relay(Command.of(LONG, "cat", "/dev/zero"), Command.of(LONG, "cat"), flow);
        assertThat(relayed.stopped()).isTrue();
        assertThat(relayed.bytes()).isGreaterThanOrEqualTo(8 * MIB);
        assertThat(ProcessHandle.current().children().filter(ProcessHandle::isAlive)
                .filter(p -> p.info().command().orElse("").endsWith("cat"))).isEmpty();
    }

    /**
     * A second that reads no more (a stuck device) holds a stop no longer than the commands' timeouts: a
     * write blocked on it for the first's, its exit after the end of its input for the second's; then it is killed.
     */
    @Test
    void aStopEndsThePipeWithinTheTimeoutsEvenWhenTheSecondReadsNoMore() {
        long stopAt = System.nanoTime() + Duration.ofMillis(300).toNanos(); // before anything is stalled for 1 s
        Flow flow = new Flow(bytes -> System.nanoTime() - stopAt > 0);
        ProcessRunner.Relayed relayed = runner.relay(Command.of(Duration.ofSeconds(1), "cat", "/dev/zero"),
                Command.of(Duration.ofSeconds(1), "sleep", "60"), flow);
        assertThat(relayed.stopped()).isTrue();
        assertThat(ProcessHandle.current().children().filter(ProcessHandle::isAlive)
                .filter(p -> p.info().command().orElse("").endsWith("sleep"))).isEmpty();
    }

    /** No byte for the first's timeout: both killed, a timed-out failure of the first. */
    @Test
    void aPipeWhereNoByteMovesForTheFirstsTimeoutFailsTimedOut() {
        assertThatThrownBy(() -> runner.relay(Command.of(Duration.ofMillis(600), "sleep", "60"), Command.of(LONG, "cat"),
                new Flow(bytes -> false)))
                .isInstanceOfSatisfying(CommandFailedException.class, e -> {
                    assertThat(e.timedOut()).isTrue();
                    assertThat(e.command().argv()).containsExactly("sleep", "60");
                });
    }

    /** The second exiting before the end of its input is the failure reported, not the first's broken pipe. */
    @Test
    void aSecondThatFailsEarlyIsTheFailureReported() {
        assertThatThrownBy(() -> runner.relay(Command.of(LONG, "cat", "/dev/zero"),
                Command.of(LONG, "ls", "/no/such/path"), new Flow(bytes -> false)))
                .isInstanceOfSatisfying(CommandFailedException.class, e -> {
                    assertThat(e.command().argv()).containsExactly("ls", "/no/such/path");
                    assertThat(e.exitCode()).isEqualTo(2);
                    assertThat(e.timedOut()).isFalse();
                });
    }

    /** The first failing after its whole output is the failure reported. */
    @Test
    void aFirstThatFailsIsTheFailureReported() {
        assertThatThrownBy(() -> runner.relay(Command.of(LONG, "ls", "/no/such/path"), Command.of(LONG, "cat"), new Flow(bytes -> false)))
                .isInstanceOfSatisfying(CommandFailedException.class, e -> {
                    assertThat(e.command().argv()).containsExactly("ls", "/no/such/path");
                    assertThat(e.stderr()).contains("No such file or directory");
                });
    }

    private static final class Flow implements ProcessRunner.Flow {
        private final LongPredicate stopAt;
        private final AtomicLong last = new AtomicLong();

        private Flow(LongPredicate stopAt) {
            this.stopAt = stopAt;
        }

        @Override
        public boolean stopped() {
            return stopAt.test(last.get());
        }

        @Override
        public void passed(long bytes) {
            last.set(bytes);
        }
    }
}
