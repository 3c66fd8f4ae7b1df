package pillar.agent.fencing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import org.junit.jupiter.api.Test;
import pillar.agent.backend.BackendException;
import pillar.api.value.VolumeId;
import pillar.runtime.exec.CallBudget;

/**
 * The wait for a volume's lock is part of the call's budget: a call that cannot have the volume
 * within it fails BUSY without running, instead of waiting on and then acting.
 */
class WaitingVolumeLocksTest {
    private static final VolumeId VOLUME = VolumeId.of("pvc-locked");

    @Test
    void aCallWhoseBudgetEndsWhileAnotherHoldsTheVolumeFailsBusyWithoutRunning() throws Exception {
        WaitingVolumeLocks locks = new WaitingVolumeLocks();
        CountDownLatch holding = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        Thread holder = Thread.ofVirtual().start(() -> locks.withLock(VOLUME, () -> {
            holding.countDown();
            try {
                return release.await(1, TimeUnit.MINUTES);
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        }));
        assertThat(holding.await(1, TimeUnit.MINUTES)).isTrue();
        AtomicBoolean ran = new AtomicBoolean();
        Thread releaser = Thread.ofVirtual().start(() -> {
            try {
                Thread.sleep(Duration.ofSeconds(2));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            release.countDown();
        });
        assertThatThrownBy(() -> CallBudget.within(Duration.ofMillis(200), () -> locks.withLock(VOLUME, () -> ran.getAndSet(true))))
                .isInstanceOfSatisfying(BackendException.class, e -> assertThat(e.kind()).isEqualTo(BackendException.Kind.BUSY))
                .hasMessageContaining("another call on it is still running");
        assertThat(ran).as("it never ran").isFalse();
        releaser.join();
        holder.join();
        assertThat(locks.withLock(VOLUME, () -> "free")).isEqualTo("free");
    }
}
