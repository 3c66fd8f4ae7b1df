package pillar.agent.configfs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import pillar.api.value.Nqn;

/**
 * A configfs call the kernel does not answer fails its operation within the deadline (timed out, so
 * the agent answers DEADLINE_EXCEEDED) and leaves the adapter usable; a volume stuck in its own
 * namespace step does not hold up another volume's export on the same port.
 */
class ConfigfsDeadlineTest {
    private static final Path DEVICE_A = Path.of("/dev/vg0/pvc-a");
    private static final Path DEVICE_B = Path.of("/dev/vg0/pvc-b");
    private static final Nqn A = Nqn.of("nqn.2024-06.io.pillar-csi:deadline-a");
    private static final Nqn B = Nqn.of("nqn.2024-06.io.pillar-csi:deadline-b");
    private static final Nqn HOST = Nqn.of("nqn.2014-08.org.nvmexpress:uuid:deadline-host");
    private static final PortId PORT = PortId.of(7);
    private static final PortAddress ADDRESS = PortAddress.tcp("127.0.0.1", 4420);
    private static final NamespaceId NSID = NamespaceId.of(1);

    /** Own threads: the common pool may have one, which the stuck call would take. */
    private final ExecutorService callers = Executors.newCachedThreadPool();
    private final FakeConfigfsTree fake = FakeConfigfsTree.create().addBlockDevice(DEVICE_A).addBlockDevice(DEVICE_B);
    private HangingTree hanging;

    @AfterEach
    void release() {
        if (hanging != null) {
            hanging.release();
        }
        callers.shutdownNow();
    }

    private ConfigfsNvmetTarget stuckOn(String relative, Duration deadline) {
        hanging = new HangingTree(fake, fake.nvmet(relative));
        return new ConfigfsNvmetTarget(fake.root(), new DeadlineConfigfsTree(hanging, deadline));
    }

    private static WantedExport wanted(Nqn subsystem, Path device) {
        return new WantedExport(subsystem, NSID, device, ADDRESS, true, Set.of(HOST));
    }

    @Test
    void aCallTheKernelDoesNotAnswerFailsAtItsDeadlineAndTheNextCallWorks() {
        ConfigfsNvmetTarget target = stuckOn("subsystems/" + A + "/namespaces/1/enable", Duration.ofMillis(300));
        long start = System.nanoTime();
        assertThatThrownBy(() -> target.ensureExport(PORT, wanted(A, DEVICE_A)))
                .isInstanceOfSatisfying(NvmetTargetException.class, e -> assertThat(e.timedOut()).isTrue())
                .hasMessageContaining("namespaces/1/enable did not return within 300 ms");
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));

        target.ensureExport(PORT, wanted(B, DEVICE_B)); // the shared lock was not kept by the stuck call
        assertThat(fake.entries("ports/7/subsystems")).containsExactly(B.value());
    }

    @Test
    void aStuckSharedStepFailsAtItsDeadlineAndReleasesTheSharedLock() {
        ConfigfsNvmetTarget target = stuckOn("ports/7/addr_traddr", Duration.ofMillis(300));
        assertThatThrownBy(() -> target.ensureExport(PORT, wanted(A, DEVICE_A)))
                .isInstanceOfSatisfying(NvmetTargetException.class, e -> assertThat(e.timedOut()).isTrue());
        hanging.release();
        target.ensureExport(PORT, wanted(B, DEVICE_B));
        target.ensureExport(PORT, wanted(A, DEVICE_A)); // converges when retried
        assertThat(fake.entries("ports/7/subsystems")).containsExactlyInAnyOrder(A.value(), B.value());
    }

    /** A removal whose look at the subsystem gets no answer fails: it never takes the silence for "absent". */
    @Test
    void aRemovalThatCannotSeeTheSubsystemFailsRatherThanReportItGone() {
        fake.target().ensureExport(PORT, wanted(A, DEVICE_A));
        ConfigfsNvmetTarget target = stuckOn("subsystems/" + A, Duration.ofMillis(300));
        assertThatThrownBy(() -> target.removeSubsystem(A))
                .isInstanceOfSatisfying(NvmetTargetException.class, e -> assertThat(e.timedOut()).isTrue());
        hanging.release();
        assertThat(fake.entries("subsystems")).containsExactly(A.value());
    }

    /**
     * A drain the kernel does not finish (a dropped controller's request stuck on a hung device) fails
     * the disallow at its deadline as timed out (DEADLINE_EXCEEDED), the host already removed, the
     * shared lock free for other volumes; the retry once the kernel answers succeeds.
     */
    @Test
    void aDrainStuckInTheKernelFailsAtItsDeadlineAndTheRetryDrains() {
        fake.target().ensureExport(PORT, wanted(A, DEVICE_A));
        ConfigfsNvmetTarget target = stuckOn("ports/" + ConfigfsNvmetTarget.DRAIN_PORT, Duration.ofMillis(300));
        long start = System.nanoTime();
        assertThatThrownBy(() -> target.disallowHost(A, HOST))
                .isInstanceOfSatisfying(NvmetTargetException.class, e -> assertThat(e.timedOut()).isTrue());
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
        assertThat(fake.entries("subsystems/" + A + "/allowed_hosts")).as("fenced before the drain").isEmpty();

        target.ensureExport(PORT, wanted(B, DEVICE_B)); // the shared lock is not held by the stuck drain
        hanging.release();
        target.disallowHost(A, HOST);
        assertThat(fake.entries("ports")).containsExactly(PORT.dirName());
    }

    @Test
    void anotherVolumeIsExportedWhileOneHangsInItsNamespace() throws Exception {
        ConfigfsNvmetTarget target = stuckOn("subsystems/" + A + "/namespaces/1/enable", Duration.ofMinutes(1));
        CompletableFuture<Void> first = CompletableFuture.runAsync(() -> target.ensureExport(PORT, wanted(A, DEVICE_A)), callers);
        hanging.awaitStuck();

        CompletableFuture<Void> second = CompletableFuture.runAsync(() -> target.ensureExport(PORT, wanted(B, DEVICE_B)), callers);
        second.get(5, TimeUnit.SECONDS);
        assertThat(first).as("the first volume is still stuck").isNotDone();
        assertThat(fake.entries("ports/7/subsystems")).containsExactly(B.value());

        hanging.release();
        first.get(5, TimeUnit.SECONDS);
        assertThat(fake.entries("ports/7/subsystems")).containsExactlyInAnyOrder(A.value(), B.value());
    }
}
