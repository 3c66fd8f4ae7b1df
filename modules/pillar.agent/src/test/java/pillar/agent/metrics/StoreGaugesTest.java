package pillar.agent.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import pillar.agent.backend.Backends;
import pillar.agent.backend.FakeLvm;
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
 * The stores' gauges over the real LVM backends on the LVM fake, with a fake clock: the host commands
 * run at most once per interval, a failed reading keeps the last value, a scrape during a refresh
 * takes the last readings, and nothing that fails breaks the scrape.
 */
class StoreGaugesTest {
    private static final long MIB = 1L << 20;
    private static final Duration REFRESH = Duration.ofSeconds(30);
    private static final List<BackendConfig> CONFIGS = List.of(
            new BackendConfig("fast", BackendKind.BACKEND_KIND_LVM_THIN, "vg0", "pool0"),
            new BackendConfig("slow", BackendKind.BACKEND_KIND_LVM_LINEAR, "vg1", ""));

    @TempDir
    Path dir;

    private final WorkloadMetrics metrics = WorkloadMetrics.create("agent");
    private final AtomicReference<Instant> now = new AtomicReference<>(Instant.parse("2026-12-03T12:00:00Z"));
    private Gate fast;
    private Gate slow;
    private final Map<String, VolumeBackend> backends = new HashMap<>();

    @BeforeEach
    void stores() {
        FakeLvm vg0 = new FakeLvm("vg0", 1024 * MIB, dir.resolve("dev")).withThinPool("pool0", 512 * MIB)
                .setUsage("pool0", 25, 12.5);
        FakeLvm vg1 = new FakeLvm("vg1", 256 * MIB, dir.resolve("dev"));
        fast = new Gate(vg0);
        slow = new Gate(vg1);
        backends.putAll(Backends.create(CONFIGS.subList(0, 1), fast, vg0.host()));
        backends.putAll(Backends.create(CONFIGS.subList(1, 2), slow, vg1.host()));
        StoreGauges.register(metrics, CONFIGS, backends, new ExportStore(dir.resolve("state")), now::get, REFRESH);
    }

    @AfterEach
    void release() {
        fast.release();
    }

    private void create(String store, String id) {
        backends.get(store).create(VolumeId.of(id), ByteSize.of(64 * MIB), Map.of());
    }

    private void later(Duration by) {
        now.updateAndGet(t -> t.plus(by));
    }

    @Test
    void theStoresAreReadOncePerIntervalAndShownByBackend() {
        create("fast", "pvc-1");
        String first = metrics.scrape();
        assertThat(first)
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
        int commands = fast.commands.get();
        create("fast", "pvc-2");
        int afterCreate = fast.commands.get();
        assertThat(afterCreate).isGreaterThan(commands);

        later(REFRESH.minusSeconds(1));
        assertThat(metrics.scrape()).isEqualTo(first);
        assertThat(fast.commands).hasValue(afterCreate);

        later(Duration.ofSeconds(1));
        assertThat(metrics.scrape()).contains("pillar_agent_volumes{backend=\"fast\"} 2.0\n");
        assertThat(fast.commands.get()).isGreaterThan(afterCreate);
    }

    @Test
    void nfsExportRecordsCountAsExportsOfTheirBackend() {
        new ExportStore(dir.resolve("state")).write(new pillar.agent.export.NfsExportRecord(VolumeId.of("pvc-n"), "slow",
                java.nio.file.Path.of("/tank/nfs/pvc-n"), pillar.agent.nfs.NfsClient.parse("server", "192.0.2.10"),
                java.util.Set.of(pillar.agent.nfs.NfsClient.parse("client", "10.0.0.1"))));
        assertThat(metrics.scrape()).contains("pillar_agent_exports{backend=\"slow\"} 1.0\n")
                .contains("pillar_agent_exports{backend=\"fast\"} 0.0\n");
    }

    @Test
    void aFailedReadingKeepsTheLastValueAndWaitsForTheNextInterval() {
        slow.failing = true;
        create("fast", "pvc-1");
        String first = metrics.scrape();
        assertThat(first).contains("pillar_agent_volumes{backend=\"fast\"} 1.0\n")
                .doesNotContain("pillar_agent_volumes{backend=\"slow\"}")
                .doesNotContain("pillar_agent_store_capacity_bytes{backend=\"slow\"}")
                .contains("pillar_agent_exports{backend=\"slow\"} 0.0\n");

        fast.failing = true;
        later(REFRESH);
        assertThat(metrics.scrape()).isEqualTo(first);
        int tried = fast.commands.get();
        assertThat(metrics.scrape()).isEqualTo(first);
        assertThat(fast.commands).as("not retried before the interval").hasValue(tried);

        fast.failing = false;
        slow.failing = false;
        later(REFRESH);
        assertThat(metrics.scrape()).contains("pillar_agent_volumes{backend=\"fast\"} 1.0\n")
                .contains("pillar_agent_volumes{backend=\"slow\"} 0.0\n");
    }

    @Test
    void aScrapeDuringARefreshTakesTheLastReadingsAndRunsNoCommand() throws Exception {
        create("fast", "pvc-1");
        metrics.scrape();
        create("fast", "pvc-2");
        later(REFRESH);
        fast.hold();
        CompletableFuture<String> refreshing = CompletableFuture.supplyAsync(metrics::scrape);
        fast.awaitHeld();
        int commands = fast.commands.get();
        assertThat(metrics.scrape()).contains("pillar_agent_volumes{backend=\"fast\"} 1.0\n");
        assertThat(fast.commands).hasValue(commands);
        fast.release();
        assertThat(refreshing.get(30, TimeUnit.SECONDS)).contains("pillar_agent_volumes{backend=\"fast\"} 2.0\n");
    }

    @Test
    void aDamagedExportRecordLeavesTheExportsOutAndTheRestShown() throws Exception {
        Files.writeString(Files.createDirectories(dir.resolve("state/exports")).resolve("pvc-9"), "not a record");
        assertThat(metrics.scrape()).doesNotContain("pillar_agent_exports{")
                .contains("pillar_agent_volumes{backend=\"fast\"} 0.0\n");
    }

    /** The fake's commands, counted, and failing or held back when the test says. */
    private static final class Gate implements ProcessRunner {
        private final FakeLvm lvm;
        final AtomicInteger commands = new AtomicInteger();
        volatile boolean failing;
        private volatile CountDownLatch held = new CountDownLatch(0);
        private final CountDownLatch entered = new CountDownLatch(1);

        Gate(FakeLvm lvm) {
            this.lvm = lvm;
        }

        void hold() {
            held = new CountDownLatch(1);
        }

        void awaitHeld() throws InterruptedException {
            assertThat(entered.await(30, TimeUnit.SECONDS)).isTrue();
        }

        void release() {
            held.countDown();
        }

        @Override
        public CommandResult run(Command command) {
            commands.incrementAndGet();
            if (held.getCount() > 0) {
                entered.countDown();
                try {
                    held.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            if (failing) {
                throw new CommandFailedException(command, 5, "  Volume group has a problem", false);
            }
            return lvm.run(command);
        }
    }
}
