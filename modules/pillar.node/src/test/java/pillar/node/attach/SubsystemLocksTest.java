package pillar.node.attach;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import pillar.api.value.Nqn;

/** One lock per subsystem: a holder waiting on the kernel holds up that subsystem only, and nothing stays behind. */
class SubsystemLocksTest {
    private final SubsystemLocks locks = new SubsystemLocks();
    /** A thread per task: the common pool may have a single worker on a small host. */
    private final ExecutorService threads = Executors.newThreadPerTaskExecutor(Thread.ofPlatform().daemon().factory());

    @Test
    void aHeldSubsystemBlocksItselfOnlyAndEntriesGoAway() throws Exception {
        CountDownLatch holding = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        Nqn stuck = Nqn.of("nqn.2024-01.io.pillar-csi:pvc-stuck");
        CompletableFuture<Void> holder = CompletableFuture.runAsync(() -> locks.with(stuck, () -> {
            holding.countDown();
            await(release);
            return null;
        }), threads);
        assertThat(holding.await(10, TimeUnit.SECONDS)).isTrue();
        // many other subsystems, enough that any fixed striping would put one beside the held one
        CompletableFuture<Integer> others = CompletableFuture.supplyAsync(() -> {
            int ran = 0;
            for (int i = 0; i < 500; i++) {
                ran += locks.with(Nqn.of("nqn.2024-01.io.pillar-csi:pvc-" + i), () -> 1);
            }
            return ran;
        }, threads);
        assertThat(others.get(10, TimeUnit.SECONDS)).isEqualTo(500);
        CompletableFuture<String> same = CompletableFuture.supplyAsync(() -> locks.with(stuck, () -> "after"), threads);
        Thread.sleep(100);
        assertThat(same).isNotDone();
        release.countDown();
        assertThat(same.get(10, TimeUnit.SECONDS)).isEqualTo("after");
        holder.get(10, TimeUnit.SECONDS);
        assertThat(locks.size()).isZero();
    }

    private static void await(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
