package pillar.agent.fencing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import pillar.api.fencing.Fencing.Intent;
import pillar.api.fencing.FencingToken;
import pillar.api.fencing.FencingViolation;
import pillar.api.value.LifecycleUid;
import pillar.api.value.VolumeId;
import pillar.runtime.metrics.WorkloadMetrics;

/** The agent's fencing: durable marks on disk, per-volume serialization, and the delete ordering. */
class FenceTest {
    @TempDir
    Path state;

    private final VolumeId volume = VolumeId.of("pvc-1");
    private final LifecycleUid a = LifecycleUid.of("0f9c2a6e-7c1b-4b8e-9a57-3e2d1c0b9a88");
    private final WorkloadMetrics metrics = WorkloadMetrics.create("agent");
    private final FencingRefusals refusals = new FencingRefusals(metrics);

    private Fence fence() {
        return new Fence(new MarkStore(state), new WaitingVolumeLocks(), refusals);
    }

    @Test
    void marksSurviveARestartAndRefuseAStaleCallAfterIt() {
        fence().run(volume, Optional.of(FencingToken.of(a, 5)), Intent.CHANGE, done -> null);
        Fence restarted = fence();
        assertThatThrownBy(() -> restarted.run(volume, Optional.of(FencingToken.of(a, 4)), Intent.CHANGE, done -> null))
                .isInstanceOfSatisfying(FencingViolation.class,
                        e -> assertThat(e.reason()).isEqualTo(FencingViolation.Reason.STALE_GENERATION));
        assertThat(state.resolve("generations/pvc-1")).content().contains("generation=5");
    }

    @Test
    void aRefusedCallDoesNotRunAndChangesNoMark() throws Exception {
        fence().run(volume, Optional.of(FencingToken.of(a, 2)), Intent.CHANGE, done -> null);
        String before = Files.readString(state.resolve("generations/pvc-1"));
        AtomicInteger ran = new AtomicInteger();
        assertThatThrownBy(() -> fence().run(volume, Optional.empty(), Intent.CHANGE, done -> ran.incrementAndGet()))
                .isInstanceOf(FencingViolation.class);
        assertThat(ran).hasValue(0);
        assertThat(Files.readString(state.resolve("generations/pvc-1"))).isEqualTo(before);
    }

    @Test
    void everyRefusalIsCountedByItsReasonAndAnAdmittedCallIsNot() {
        LifecycleUid b = LifecycleUid.random();
        Fence fence = fence();
        fence.run(volume, Optional.of(FencingToken.of(a, 2)), Intent.CHANGE, done -> null);
        assertThat(metrics.scrape()).contains("pillar_fencing_refusals_total{reason=\"stale_generation\"} 0.0");
        for (Optional<FencingToken> refused : List.of(Optional.<FencingToken>empty(), Optional.of(FencingToken.of(a, 1)),
                Optional.of(FencingToken.of(a, 0)), Optional.of(FencingToken.of(b, 9)))) {
            assertThatThrownBy(() -> fence.run(volume, refused, Intent.CHANGE, done -> null)).isInstanceOf(FencingViolation.class);
        }
        fence.run(volume, Optional.of(FencingToken.of(a, 3)), Intent.END, done -> null);
        assertThatThrownBy(() -> fence.run(volume, Optional.of(FencingToken.of(a, 4)), Intent.CHANGE, done -> null))
                .isInstanceOf(FencingViolation.class);
        assertThat(metrics.scrape())
                .contains("pillar_fencing_refusals_total{reason=\"missing_token\"} 1.0")
                .contains("pillar_fencing_refusals_total{reason=\"stale_generation\"} 2.0")
                .contains("pillar_fencing_refusals_total{reason=\"foreign_lifecycle\"} 1.0")
                .contains("pillar_fencing_refusals_total{reason=\"ended_lifecycle\"} 1.0");
    }

    @Test
    void aDeleteThatFailedHalfWayIsRetriedForRealAndOnlyThenTombstoned() {
        Fence fence = fence();
        FencingToken token = FencingToken.of(a, 3);
        assertThatThrownBy(() -> fence.run(volume, Optional.of(token), Intent.END, done -> {
            throw new IllegalStateException("dataset is busy");
        })).hasMessageContaining("busy");
        assertThat(new MarkStore(state).read(volume).orElseThrow().ended()).isFalse();
        List<Boolean> seen = new ArrayList<>();
        fence.run(volume, Optional.of(token), Intent.END, done -> seen.add(done));
        fence.run(volume, Optional.of(token), Intent.END, done -> seen.add(done));
        assertThat(seen).containsExactly(false, true);
        assertThat(new MarkStore(state).read(volume).orElseThrow().ended()).isTrue();
        assertThatThrownBy(() -> fence.run(volume, Optional.of(token), Intent.CHANGE, done -> null))
                .isInstanceOfSatisfying(FencingViolation.class,
                        e -> assertThat(e.reason()).isEqualTo(FencingViolation.Reason.ENDED_LIFECYCLE));
    }

    @Test
    void aDamagedMarkIsRefusedNotTakenForNoMark() throws Exception {
        Files.createDirectories(state.resolve("generations"));
        Files.writeString(state.resolve("generations/pvc-1"), "version=1\nlifecycle=garbage\n");
        assertThatThrownBy(() -> fence().run(volume, Optional.of(FencingToken.of(a, 9)), Intent.CHANGE, done -> null))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("damaged");
    }

    @Test
    void aDamagedMarkIsReportedAndLeftAndARevokeStillRunsWithoutWritingOne() throws Exception {
        Files.createDirectories(state.resolve("generations"));
        Path file = state.resolve("generations/pvc-1");
        Files.writeString(file, "version=1\nlifecycle=garbage\n");
        pillar.agent.state.DamagedRecords damaged = new pillar.agent.state.DamagedRecords();
        MarkStore marks = new MarkStore(state, damaged);
        marks.check();
        assertThat(damaged.list()).singleElement().satisfies(d -> {
            assertThat(d.kind()).isEqualTo("mark");
            assertThat(d.file()).isEqualTo(file.toAbsolutePath());
        });
        Fence fence = new Fence(marks, new WaitingVolumeLocks(), new FencingRefusals(WorkloadMetrics.create("agent")));
        assertThatThrownBy(() -> fence.run(volume, Optional.of(FencingToken.of(a, 9)), Intent.CHANGE, done -> "changed"))
                .hasMessageContaining("damaged");
        assertThat(fence.<String>revoke(volume, Optional.of(FencingToken.of(a, 9)), done -> "denied")).isEqualTo("denied");
        assertThat(Files.readString(file)).as("left as it was for the operator").isEqualTo("version=1\nlifecycle=garbage\n");
    }

    @Test
    void callsOnOneVolumeAreSerializedAndOtherVolumesRunMeanwhile() throws Exception {
        Fence fence = fence();
        CountDownLatch inside = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        AtomicInteger concurrent = new AtomicInteger();
        AtomicInteger maxConcurrent = new AtomicInteger();
        Thread first = Thread.ofVirtual().start(() -> fence.run(volume, Optional.of(FencingToken.of(a, 1)),
                Intent.CHANGE, done -> {
                    maxConcurrent.accumulateAndGet(concurrent.incrementAndGet(), Math::max);
                    inside.countDown();
                    await(release);
                    concurrent.decrementAndGet();
                    return null;
                }));
        assertThat(inside.await(10, TimeUnit.SECONDS)).isTrue();
        Thread second = Thread.ofVirtual().start(() -> fence.run(volume, Optional.of(FencingToken.of(a, 1)),
                Intent.CHANGE, done -> {
                    maxConcurrent.accumulateAndGet(concurrent.incrementAndGet(), Math::max);
                    concurrent.decrementAndGet();
                    return null;
                }));
        // another volume is not held up by the first one's lock
        fence.run(VolumeId.of("pvc-2"), Optional.of(FencingToken.of(a, 1)), Intent.CHANGE, done -> null);
        release.countDown();
        first.join();
        second.join();
        assertThat(maxConcurrent).hasValue(1);
    }

    private static void await(CountDownLatch latch) {
        try {
            latch.await(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
