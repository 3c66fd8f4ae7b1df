package pillar.runtime.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;

import io.grpc.Status;
import org.junit.jupiter.api.Test;

import pillar.api.value.VolumeId;

/** One call per volume: a second is ABORTED at once, other volumes go on, the lock is released on failure. */
class VolumeLocksTest {
    private final VolumeLocks locks = new VolumeLocks();
    private final VolumeId a = VolumeId.of("pvc-a");
    private final VolumeId b = VolumeId.of("pvc-b");

    @Test
    void aSecondCallOnTheSameVolumeIsAbortedWhileTheFirstRuns() throws Exception {
        CountDownLatch inside = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        CompletableFuture<String> first = CompletableFuture.supplyAsync(() -> locks.run(a, "NodeStageVolume", () -> {
            inside.countDown();
            await(release);
            return "staged";
        }));
        inside.await();
        assertThat(locks.isBusy(a)).isTrue();
        assertThatThrownBy(() -> locks.run(a, "NodeUnstageVolume", () -> "no"))
                .isInstanceOfSatisfying(CsiException.class, e -> {
                    assertThat(e.code()).isEqualTo(Status.Code.ABORTED);
                    assertThat(e.getMessage()).contains("NodeStageVolume", "pvc-a");
                });
        assertThat(locks.run(b, "NodeStageVolume", () -> "other volume")).isEqualTo("other volume");
        release.countDown();
        assertThat(first.get()).isEqualTo("staged");
        assertThat(locks.isBusy(a)).isFalse();
    }

    @Test
    void aFailedCallReleasesTheVolume() {
        assertThatThrownBy(() -> locks.run(a, "x", () -> {
            throw new IllegalStateException("boom");
        })).hasMessage("boom");
        assertThat(locks.run(a, "y", () -> 1)).isEqualTo(1);
    }

    private static void await(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
