package pillar.controller.reconcile.loop;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The queue's promises: one run at a time per key, adds while running run again, nothing before open. */
class WorkQueueTest {
    private final ScheduledThreadPoolExecutor scheduler = new ScheduledThreadPoolExecutor(4);

    @AfterEach
    void stop() {
        scheduler.shutdownNow();
    }

    @Test
    void nothingRunsBeforeOpenAndAKeyAddedTwiceRunsOnce() throws Exception {
        List<String> runs = new CopyOnWriteArrayList<>();
        WorkQueue queue = new WorkQueue(scheduler, key -> {
            runs.add(key);
            return Optional.empty();
        });
        queue.add("a", Duration.ZERO);
        queue.add("a", Duration.ZERO);
        queue.add("b", Duration.ofMinutes(10));
        queue.add("b", Duration.ZERO);
        assertThat(scheduler.getTaskCount()).as("tasks handed to the scheduler before open").isZero();

        queue.open();
        await().atMost(Duration.ofSeconds(10)).until(() -> runs.size() == 2);
        assertThat(runs).containsExactlyInAnyOrder("a", "b");
        queue.close();
    }

    @Test
    void aKeyAddedWhileRunningRunsAgainAfterwardsNeverConcurrently() throws Exception {
        CountDownLatch inside = new CountDownLatch(1);
        CountDownLatch letGo = new CountDownLatch(1);
        AtomicInteger running = new AtomicInteger();
        AtomicInteger runs = new AtomicInteger();
        ConcurrentHashMap<String, Integer> overlaps = new ConcurrentHashMap<>();
        WorkQueue queue = new WorkQueue(scheduler, key -> {
            if (running.incrementAndGet() > 1) {
                overlaps.merge(key, 1, Integer::sum);
            }
            if (runs.incrementAndGet() == 1) {
                inside.countDown();
                try {
                    letGo.await(10, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            running.decrementAndGet();
            return Optional.empty();
        });
        queue.open();
        queue.add("a", Duration.ZERO);
        assertThat(inside.await(10, TimeUnit.SECONDS)).isTrue();
        queue.add("a", Duration.ZERO);
        queue.add("a", Duration.ZERO);
        letGo.countDown();
        await().atMost(Duration.ofSeconds(10)).until(() -> runs.get() == 2);
        assertThat(overlaps).isEmpty();
        queue.close();
    }

    @Test
    void theWorkerAsksForItsKeyAgain() {
        AtomicInteger runs = new AtomicInteger();
        WorkQueue queue = new WorkQueue(scheduler, key -> runs.incrementAndGet() < 3
                ? Optional.of(Duration.ofMillis(1)) : Optional.empty());
        queue.open();
        queue.add("poll", Duration.ZERO);
        await().atMost(Duration.ofSeconds(10)).until(() -> runs.get() == 3);
        queue.close();
    }
}
