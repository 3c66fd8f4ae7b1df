package pillar.agent.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import pillar.agent.backend.Backends;
import pillar.agent.backend.lvm.FakeLvm;
import pillar.agent.backend.VolumeBackend;
import pillar.agent.config.BackendConfig;
import pillar.agent.export.ExportStore;
import pillar.api.agent.v1.BackendKind;
import pillar.api.value.ByteSize;
import pillar.api.value.VolumeId;
import pillar.runtime.exec.Command;
import pillar.runtime.exec.CommandFailedException;
import pillar.runtime.exec.CommandResult;
import pillar.runtime.exec.ProcessRunner;
import pillar.runtime.metrics.WorkloadMetrics;

/**
 * The stores' gauges over the real LVM backends on the LVM fake, their refresher's pauses played by
 * the test ({@link Steps}): the stores are read at start and after each pause, never by a scrape; a
 * scrape while a refresh is stuck in a command takes the last readings; a failed reading keeps the
 * last value; closing stops the refresher, a stuck command included; nothing that fails breaks the
 * scrape. Every assertion is on values and commands, none on times (the waits are guards against a hang).
 */
class StoreGaugesTest {
    private static final long MIB = 1L << 20;
    private static final Duration REFRESH = Duration.ofSeconds(30);
    private static final Duration PATIENCE = Duration.ofSeconds(30);
    private static final List<BackendConfig> CONFIGS = List.of(
            new BackendConfig("fast", BackendKind.BACKEND_KIND_LVM_THIN, "vg0", "pool0"),
            new BackendConfig("slow", BackendKind.BACKEND_KIND_LVM_LINEAR, "vg1", ""));

    @TempDir
    Path dir;

    private final WorkloadMetrics metrics = WorkloadMetrics.create("agent");
    private final Steps steps = new Steps();
    private Gate fast;
    private Gate slow;
    private final Map<String, VolumeBackend> backends = new HashMap<>();
    private StoreGauges gauges;

    @BeforeEach
    void stores() {
        FakeLvm vg0 = new FakeLvm("vg0", 1024 * MIB, dir.resolve("dev")).withThinPool("pool0", 512 * MIB)
                .setUsage("pool0", 25, 12.5);
        FakeLvm vg1 = new FakeLvm("vg1", 256 * MIB, dir.resolve("dev"));
        fast = new Gate(vg0);
        slow = new Gate(vg1);
        backends.putAll(Backends.create(CONFIGS.subList(0, 1), fast, vg0.host()));
        backends.putAll(Backends.create(CONFIGS.subList(1, 2), slow, vg1.host()));
        gauges = StoreGauges.register(metrics, CONFIGS, backends, new ExportStore(dir.resolve("state")), REFRESH, steps);
    }

    @AfterEach
    void stop() throws InterruptedException {
        fast.release();
        gauges.close();
        assertThat(gauges.awaitStopped(PATIENCE)).isTrue();
    }

    private void create(String store, String id) {
        backends.get(store).create(VolumeId.of(id), ByteSize.of(64 * MIB), Map.of());
    }

    /** Starts the refresher and waits for its first refresh to end (it pauses then). */
    private void started() throws InterruptedException {
        gauges.start();
        assertThat(steps.awaitPause()).isEqualTo(REFRESH);
    }

    /** Lets the refresher's pause end and waits for the refresh after it to end. */
    private void nextRefresh() throws InterruptedException {
        steps.elapse();
        assertThat(steps.awaitPause()).isEqualTo(REFRESH);
    }

    private int completed() {
        return fast.completed.get() + slow.completed.get();
    }

    @Test
    void theStoresAreReadAtStartAndShownByBackend() throws Exception {
        create("fast", "pvc-1");
        int created = fast.commands.get();
        assertThat(metrics.scrape()).as("never read yet: left out")
                .contains("pillar_agent_exports{backend=\"fast\"} 0.0\n")
                .doesNotContain("pillar_agent_volumes{").doesNotContain("pillar_agent_store_capacity_bytes{")
                .doesNotContain("pillar_agent_store_free_bytes{").doesNotContain("ratio{");
        assertThat(fast.commands).as("a scrape runs no command").hasValue(created);

        started();
        assertThat(metrics.scrape())
                .contains("pillar_agent_exports{backend=\"fast\"} 0.0\n")
                .contains("pillar_agent_exports{backend=\"slow\"} 0.0\n")
                .contains("pillar_agent_volumes{backend=\"fast\"} 1.0\n")
                .contains("pillar_agent_volumes{backend=\"slow\"} 0.0\n")
                .contains("pillar_agent_store_capacity_bytes{backend=\"fast\"} " + (double) (512 * MIB) + "\n")
                .contains("pillar_agent_store_capacity_bytes{backend=\"slow\"} " + (double) (256 * MIB) + "\n")
                .contains("pillar_agent_store_free_bytes{backend=\"slow\"} " + (double) (256 * MIB) + "\n")
                .contains("pillar_agent_thin_pool_data_ratio{backend=\"fast\"} 0.25\n")
                .contains("pillar_agent_thin_pool_metadata_ratio{backend=\"fast\"} 0.125\n")
                .doesNotContain("ratio{backend=\"slow\"}")
                .doesNotContain("pvc-1");
        assertThat(fast.commands.get()).isGreaterThan(created);
        assertThat(slow.commands.get()).isPositive();
    }

    /** The thin store's 512 MiB pool is 25 % used (384 MiB free) but holds 448 MiB of thin volumes at ratio 1: 64 MiB left. */
    @Test
    void aThinStoresFreeBytesAreWhatItsOverProvisioningRatioLeaves() throws Exception {
        for (int i = 1; i <= 7; i++) {
            create("fast", "pvc-" + i);
        }
        started();
        assertThat(metrics.scrape()).contains("pillar_agent_store_free_bytes{backend=\"fast\"} " + (double) (64 * MIB) + "\n");
    }

    @Test
    void theRefresherReadsTheStoresAgainAfterEachPauseAndAScrapeNever() throws Exception {
        create("fast", "pvc-1");
        started();
        String first = metrics.scrape();
        assertThat(first).contains("pillar_agent_volumes{backend=\"fast\"} 1.0\n");
        create("fast", "pvc-2");
        int fastCommands = fast.commands.get();
        int slowCommands = slow.commands.get();

        assertThat(metrics.scrape()).as("the last readings, until the pause ends").isEqualTo(first);
        assertThat(metrics.scrape()).isEqualTo(first);
        assertThat(fast.commands).as("scrapes run no command").hasValue(fastCommands);
        assertThat(slow.commands).hasValue(slowCommands);

        nextRefresh();
        assertThat(metrics.scrape()).contains("pillar_agent_volumes{backend=\"fast\"} 2.0\n")
                .contains("pillar_agent_store_free_bytes{backend=\"slow\"} " + (double) (256 * MIB) + "\n");
        assertThat(fast.commands.get()).isGreaterThan(fastCommands);
        assertThat(slow.commands.get()).isGreaterThan(slowCommands);

        create("fast", "pvc-3");
        nextRefresh();
        assertThat(metrics.scrape()).contains("pillar_agent_volumes{backend=\"fast\"} 3.0\n");
    }

    @Test
    void aScrapeTakesTheLastReadingsWhileARefreshIsStuckInACommand() throws Exception {
        create("fast", "pvc-1");
        started();
        String first = metrics.scrape();
        create("fast", "pvc-2");
        fast.hold();
        steps.elapse();
        fast.awaitHeld(); // the refresher waits in one of fast's commands
        int commands = fast.commands.get() + slow.commands.get();

        // on another thread, so that a scrape that waited for the command failed here rather than hung
        String scraped = CompletableFuture.supplyAsync(metrics::scrape).get(PATIENCE.toSeconds(), TimeUnit.SECONDS);
        assertThat(scraped).isEqualTo(first).contains("pillar_agent_volumes{backend=\"fast\"} 1.0\n")
                .contains("pillar_agent_store_capacity_bytes{backend=\"fast\"} " + (double) (512 * MIB) + "\n")
                .contains("pillar_agent_volumes{backend=\"slow\"} 0.0\n")
                .contains("pillar_agent_thin_pool_data_ratio{backend=\"fast\"} 0.25\n");
        assertThat(gauges.refreshNow()).as("no second refresh while one is stuck").isFalse();
        assertThat(fast.commands.get() + slow.commands.get()).as("neither the scrape nor the refused refresh ran a command")
                .isEqualTo(commands);
        assertThat(steps.pauses()).as("the stuck refresh has not ended").isZero();

        fast.release();
        assertThat(steps.awaitPause()).isEqualTo(REFRESH);
        assertThat(metrics.scrape()).contains("pillar_agent_volumes{backend=\"fast\"} 2.0\n");
    }

    @Test
    void aFailedReadingKeepsTheLastValueUntilARefreshSucceeds() throws Exception {
        slow.failing = true;
        create("fast", "pvc-1");
        started();
        String first = metrics.scrape();
        assertThat(first).contains("pillar_agent_volumes{backend=\"fast\"} 1.0\n")
                .doesNotContain("pillar_agent_volumes{backend=\"slow\"}")
                .doesNotContain("pillar_agent_store_capacity_bytes{backend=\"slow\"}")
                .contains("pillar_agent_exports{backend=\"slow\"} 0.0\n");

        create("fast", "pvc-2");
        fast.failing = true;
        int tried = fast.commands.get();
        nextRefresh();
        assertThat(fast.commands.get()).as("read again, and failed").isGreaterThan(tried);
        assertThat(metrics.scrape()).as("the last values kept").isEqualTo(first);

        fast.failing = false;
        slow.failing = false;
        nextRefresh();
        assertThat(metrics.scrape()).contains("pillar_agent_volumes{backend=\"fast\"} 2.0\n")
                .contains("pillar_agent_volumes{backend=\"slow\"} 0.0\n")
                .contains("pillar_agent_store_capacity_bytes{backend=\"slow\"} " + (double) (256 * MIB) + "\n");
    }

    @Test
    void closingStopsTheRefresherWhichNeverStartsAgain() throws Exception {
        create("fast", "pvc-1");
        started();
        String last = metrics.scrape();
        int commands = fast.commands.get() + slow.commands.get();

        gauges.close();
        assertThat(gauges.awaitStopped(PATIENCE)).as("the refresher ended").isTrue();
        gauges.start();
        assertThat(gauges.awaitStopped(PATIENCE)).isTrue();
        assertThat(steps.pauses()).as("no refresh after the close").isZero();
        assertThat(fast.commands.get() + slow.commands.get()).isEqualTo(commands);
        assertThat(metrics.scrape()).as("the last readings stay").isEqualTo(last);
    }

    @Test
    void closingInterruptsARefreshStuckInACommandAndReadsNoFurtherStore() throws Exception {
        started();
        fast.hold();
        steps.elapse();
        fast.awaitHeld();
        int completed = completed();

        gauges.close();
        assertThat(gauges.awaitStopped(PATIENCE)).as("the refresher ended").isTrue();
        assertThat(fast.interrupted).as("the stuck command was interrupted").isTrue();
        assertThat(completed()).as("no command completed after the close").isEqualTo(completed);
        assertThat(steps.pauses()).isZero();
    }

    @Test
    void aClosedGaugesNeverStart() throws Exception {
        gauges.close();
        gauges.start();
        assertThat(gauges.awaitStopped(PATIENCE)).isTrue();
        assertThat(fast.commands.get() + slow.commands.get()).isZero();
        assertThat(metrics.scrape()).doesNotContain("pillar_agent_volumes{");
    }

    @Test
    void nfsExportRecordsCountAsExportsOfTheirBackendAndTheirClientsAsItsAllowedHosts() {
        new ExportStore(dir.resolve("state")).write(new pillar.agent.export.NfsExportRecord(VolumeId.of("pvc-n"), "slow",
                java.nio.file.Path.of("/tank/nfs/pvc-n"), pillar.agent.nfs.NfsClient.parse("server", "192.0.2.10"),
                java.util.Set.of(pillar.agent.nfs.NfsClient.parse("client", "10.0.0.1"))));
        assertThat(metrics.scrape()).contains("pillar_agent_exports{backend=\"slow\"} 1.0\n")
                .contains("pillar_agent_exports{backend=\"fast\"} 0.0\n")
                .contains("pillar_agent_export_allowed_hosts{backend=\"slow\"} 1.0\n")
                .contains("pillar_agent_export_allowed_hosts{backend=\"fast\"} 0.0\n");
    }

    @Test
    void aDamagedExportRecordIsNotCountedAndTheRestShown() throws Exception {
        // it is counted in pillar_agent_damaged_records instead (DamagedRecords, registered by the agent)
        Files.writeString(Files.createDirectories(dir.resolve("state/exports")).resolve("pvc-9"), "not a record");
        started();
        assertThat(metrics.scrape()).contains("pillar_agent_exports{backend=\"fast\"} 0.0\n")
                .contains("pillar_agent_volumes{backend=\"fast\"} 0.0\n");
    }

    /**
     * The refresher's pauses, played by the test: each pause (entered when a refresh has ended) is
     * recorded and lasts until {@link #elapse}, or until the refresher is interrupted.
     */
    private static final class Steps implements StoreGauges.Pause {
        private final BlockingQueue<Duration> asked = new LinkedBlockingQueue<>();
        private final Semaphore elapsed = new Semaphore(0);

        @Override
        public void pause(Duration duration) throws InterruptedException {
            asked.add(duration);
            elapsed.acquire();
        }

        /** Waits for the refresher to pause (its refresh has ended); the pause it asked for. */
        Duration awaitPause() throws InterruptedException {
            Duration pause = asked.poll(PATIENCE.toSeconds(), TimeUnit.SECONDS);
            assertThat(pause).as("the refresher paused after a refresh").isNotNull();
            return pause;
        }

        /** Ends the current pause (or the next one). */
        void elapse() {
            elapsed.release();
        }

        /** Pauses entered and not yet awaited. */
        int pauses() {
            return asked.size();
        }
    }

    /** The fake's commands, counted, and failing or held back when the test says; interrupted as the real runner is. */
    private static final class Gate implements ProcessRunner {
        private final FakeLvm lvm;
        final AtomicInteger commands = new AtomicInteger();
        final AtomicInteger completed = new AtomicInteger();
        volatile boolean failing;
        volatile boolean interrupted;
        private volatile CountDownLatch held = new CountDownLatch(0);
        private volatile CountDownLatch entered = new CountDownLatch(1);

        Gate(FakeLvm lvm) {
            this.lvm = lvm;
        }

        void hold() {
            entered = new CountDownLatch(1);
            held = new CountDownLatch(1);
        }

        void awaitHeld() throws InterruptedException {
            assertThat(entered.await(PATIENCE.toSeconds(), TimeUnit.SECONDS)).as("a command held").isTrue();
        }

        void release() {
            held.countDown();
        }

        @Override
        public CommandResult run(Command command) {
            commands.incrementAndGet();
            try {
                if (Thread.currentThread().isInterrupted()) {
                    throw new InterruptedException();
                }
                if (held.getCount() > 0) {
                    entered.countDown();
                    held.await();
                }
            } catch (InterruptedException e) {
                interrupted = true;
                Thread.currentThread().interrupt();
                throw new CommandFailedException(command, -1, "interrupted", true);
            }
            if (failing) {
                throw new CommandFailedException(command, 5, "  Volume group has a problem", false);
            }
            CommandResult result = lvm.run(command);
            completed.incrementAndGet();
            return result;
        }
    }
}
