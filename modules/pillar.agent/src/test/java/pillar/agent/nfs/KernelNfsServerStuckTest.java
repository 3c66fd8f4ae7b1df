package pillar.agent.nfs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import pillar.agent.backend.ScriptedRunner;
import pillar.api.value.VolumeId;

/**
 * A stuck expiry on the kernel adapter: a client's {@code ctl} is a FIFO nobody reads, so the write blocks in
 * the kernel as an {@code expire} waiting on a hung device does. Another volume's export and unexport go on
 * meanwhile; past the deadline the release is PENDING and counted stuck; a retry joins the stuck write rather
 * than starting another; more writes than allowed in flight are refused at once.
 */
class KernelNfsServerStuckTest {
    private static final NfsClient A = NfsClient.parse("a", "10.77.1.2");
    private static final NfsClient B = NfsClient.parse("b", "10.77.2.2");
    private static final NfsFsid FSID = NfsFsid.of(VolumeId.of("pvc-1"));
    private static final String V1_A = "/tank/nfs/pvc-1\n\t\t10.77.1.2(sync,wdelay,hide,no_subtree_check,fsid=" + FSID.text()
            + ",sec=sys,rw,secure,no_root_squash,no_all_squash)\n";
    private static final String V2_B = "/tank/nfs/pvc-2\n\t\t10.77.2.2(sync,wdelay,hide,no_subtree_check,fsid=x"
            + ",sec=sys,rw,secure,no_root_squash,no_all_squash)\n";

    @TempDir
    Path etc;

    private final List<Path> fifos = new ArrayList<>();
    /** A thread per task: the common pool's few workers could all be blocked on a FIFO. */
    private static final java.util.concurrent.Executor THREADS = java.util.concurrent.Executors.newThreadPerTaskExecutor(
            Thread.ofPlatform().daemon().factory());

    /** Releases every blocked writer: a reader opens each FIFO and drains it. */
    @AfterEach
    void unblock() throws Exception {
        for (Path fifo : fifos) {
            drain(fifo);
        }
    }

    private static String drain(Path fifo) throws Exception {
        CompletableFuture<String> read = CompletableFuture.supplyAsync(() -> {
            try (InputStream in = Files.newInputStream(fifo)) {
                return new String(in.readAllBytes());
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }, THREADS);
        return read.get(10, TimeUnit.SECONDS);
    }

    /** An nfsd client of {@code address} whose ctl is a FIFO nobody reads: a write to it blocks. */
    private Path stuckClient(String id, String address) throws Exception {
        Path dir = Files.createDirectories(etc.resolve("proc/fs/nfsd/clients").resolve(id));
        Files.writeString(dir.resolve("info"), "clientid: 0x6e8c2ab7655f3a01\naddress: \"" + address + "\"\nstatus: confirmed\n");
        Path ctl = dir.resolve("ctl");
        Process mkfifo = new ProcessBuilder("mkfifo", ctl.toString()).inheritIO().start();
        assertThat(mkfifo.waitFor(10, TimeUnit.SECONDS) && mkfifo.exitValue() == 0).as("mkfifo " + ctl).isTrue();
        fifos.add(ctl);
        return ctl;
    }

    private KernelNfsServer server(ScriptedRunner runner, NfsdWrites writes) {
        return new KernelNfsServer(runner, Duration.ofSeconds(7), etc.resolve("exports"), etc.resolve("etab"), etc.resolve("proc"), writes);
    }

    private static void await(java.util.function.BooleanSupplier condition) throws InterruptedException {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime()).as("waited 10 s").isLessThan(end);
            Thread.sleep(10);
        }
    }

    @Test
    void aStuckExpiryNeverHoldsUpAnotherVolumesExportOrUnexport() throws Exception {
        Path ctl = stuckClient("3", "10.77.1.2:876");
        NfsdWrites writes = new NfsdWrites(Duration.ofSeconds(60), 4);
        ScriptedRunner runner = new ScriptedRunner(ScriptedRunner.printing(V1_A, ""), ScriptedRunner.printing("", ""),
                ScriptedRunner.printing("", ""), // A's unexport: listing, -u, listing
                ScriptedRunner.printing("", ""), // B's export
                ScriptedRunner.printing(V2_B, ""), ScriptedRunner.printing("", ""), ScriptedRunner.printing("", "")); // B's unexport
        KernelNfsServer server = server(runner, writes);

        CompletableFuture<StateRelease> fenceA = CompletableFuture.supplyAsync(() -> server.unexport(Path.of("/tank/nfs/pvc-1"), A),
                THREADS);
        await(() -> writes.running() == 1);

        CompletableFuture<StateRelease> others = CompletableFuture.supplyAsync(() -> {
            server.export(Path.of("/tank/nfs/pvc-2"), B, NfsFsid.of(VolumeId.of("pvc-2")));
            return server.unexport(Path.of("/tank/nfs/pvc-2"), B);
        }, THREADS);
        assertThat(others.get(10, TimeUnit.SECONDS)).as("B's export and unexport while A's expiry is stuck").isEqualTo(StateRelease.DONE);
        assertThat(fenceA).as("A's expiry, still inside the kernel").isNotDone();

        assertThat(drain(ctl)).isEqualTo("expire\n");
        fifos.remove(ctl);
        assertThat(fenceA.get(10, TimeUnit.SECONDS)).isEqualTo(StateRelease.DONE);
    }

    @Test
    void anExpiryPastItsDeadlineIsPendingCountedAndARetryJoinsItsThread() throws Exception {
        Path ctl = stuckClient("3", "10.77.1.2:876");
        pillar.runtime.metrics.WorkloadMetrics metrics = pillar.runtime.metrics.WorkloadMetrics.create("agent");
        NfsdWrites writes = new NfsdWrites(Duration.ofMillis(200), 4).register(metrics);
        ScriptedRunner runner = new ScriptedRunner(ScriptedRunner.printing(V1_A, ""), ScriptedRunner.printing("", ""),
                ScriptedRunner.printing("", ""), ScriptedRunner.printing("", ""));
        KernelNfsServer server = server(runner, writes);

        assertThat(server.unexport(Path.of("/tank/nfs/pvc-1"), A)).isEqualTo(StateRelease.PENDING);
        assertThat(writes.stuck()).isEqualTo(1);
        assertThat(metrics.scrape()).contains(NfsdWrites.STUCK + " 1.0");
        assertThat(server.releaseState(Path.of("/tank/nfs/pvc-1"), A)).as("the retry, still stuck").isEqualTo(StateRelease.PENDING);
        assertThat(writes.running()).as("one thread for the one stuck write").isEqualTo(1);
        assertThat(writes.stuck()).isEqualTo(1);

        assertThat(drain(ctl)).as("written once").isEqualTo("expire\n");
        fifos.remove(ctl);
        await(() -> writes.stuck() == 0 && writes.running() == 0);
    }

    @Test
    void aWriteBeyondTheStuckOnesAllowedInFlightIsRefusedAtOnce() throws Exception {
        Path first = stuckClient("3", "10.77.1.2:876");
        Path second = stuckClient("4", "10.77.2.2:901");
        NfsdWrites writes = new NfsdWrites(Duration.ofMillis(200), 1);

        assertThat(writes.write(first, "expire\n")).isFalse();
        long start = System.nanoTime();
        assertThat(writes.write(second, "expire\n")).isFalse();

        assertThat(Duration.ofNanos(System.nanoTime() - start)).as("refused, not waited for").isLessThan(Duration.ofMillis(200));
        assertThat(writes.running()).isEqualTo(1);
        assertThat(writes.stuck()).isEqualTo(1);
        assertThat(drain(first)).isEqualTo("expire\n");
        fifos.remove(first);
        fifos.remove(second);
        await(() -> writes.running() == 0);
        assertThat(writes.write(etc.resolve("missing"), "expire\n")).as("a failed write returned: logged, not retried").isTrue();
    }
}
