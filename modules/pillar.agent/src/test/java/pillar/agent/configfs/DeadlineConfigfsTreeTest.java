package pillar.agent.configfs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Set;
import java.util.stream.Collectors;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import pillar.runtime.metrics.WorkloadMetrics;

/**
 * A hung kernel costs a bounded number of threads: each call past its deadline is counted as stuck
 * (and served as a gauge) until its thread returns; once every worker is stuck the next call is
 * refused at once, without a new thread; when the kernel lets go the count falls and calls work again.
 */
class DeadlineConfigfsTreeTest {
    private static final int WORKERS = 3;

    private final FakeConfigfsTree fake = FakeConfigfsTree.create();
    private final HangingTree hanging = new HangingTree(fake, fake.nvmet("ports"));

    @AfterEach
    void release() {
        hanging.release();
    }

    @Test
    void stuckCallsAreCountedAndOnceEveryWorkerIsStuckACallIsRefusedWithoutAThread() throws Exception {
        DeadlineConfigfsTree tree = new DeadlineConfigfsTree(hanging, Duration.ofMillis(100), WORKERS);
        for (int attempt = 1; attempt <= WORKERS; attempt++) {
            // a call whose worker had not even started within the deadline (a loaded machine) never starts and is not
            // stuck: try again until this one is inside the hanging tree, within a bound
            for (int tries = 0; tree.stuck() < attempt; tries++) {
                assertThat(tries).as("attempts for stuck call %d", attempt).isLessThan(50);
                assertThatThrownBy(() -> tree.list(fake.nvmet("ports"))).isInstanceOf(ConfigfsTimeoutException.class)
                        .hasMessageContaining("did not return within 100 ms");
            }
            assertThat(tree.stuck()).isEqualTo(attempt);
        }
        Set<Long> workersBefore = configfsThreads();
        assertThatThrownBy(() -> tree.list(fake.nvmet("subsystems"))).isInstanceOf(ConfigfsTimeoutException.class)
                .hasMessageContaining("refused: all 3 configfs worker threads are stuck");
        assertThat(configfsThreads()).as("no thread per attempt").isEqualTo(workersBefore).hasSize(WORKERS);

        hanging.release();
        long deadline = System.nanoTime() + Duration.ofMinutes(1).toNanos();
        while (tree.stuck() > 0 && System.nanoTime() - deadline < 0) {
            Thread.sleep(10);
        }
        assertThat(tree.stuck()).as("the kernel let go of every stuck call").isZero();
        assertThat(tree.list(fake.nvmet("ports"))).isNotNull();
    }

    @Test
    void theStuckCallsAreAGauge() {
        WorkloadMetrics metrics = WorkloadMetrics.create("agent");
        DeadlineConfigfsTree tree = new DeadlineConfigfsTree(hanging, Duration.ofMillis(100), metrics);
        assertThatThrownBy(() -> tree.list(fake.nvmet("ports"))).isInstanceOf(ConfigfsTimeoutException.class);
        assertThat(metrics.scrape()).contains(DeadlineConfigfsTree.STUCK + " 1.0");
    }

    /** The ids of the live threads named as this tree's workers (other tests' trees included: none run at once). */
    private static Set<Long> configfsThreads() {
        return Thread.getAllStackTraces().keySet().stream().filter(t -> t.getName().equals("configfs-call") && t.isAlive())
                .filter(t -> java.util.Arrays.stream(t.getStackTrace()).anyMatch(f -> f.getClassName().endsWith("HangingTree")))
                .map(Thread::threadId).collect(Collectors.toSet());
    }
}
