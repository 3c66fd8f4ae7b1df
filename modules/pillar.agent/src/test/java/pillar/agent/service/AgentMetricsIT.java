package pillar.agent.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.HttpURLConnection;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;

import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import pillar.agent.AgentMain;
import pillar.agent.backend.Backends;
import pillar.agent.backend.lvm.FakeLvm;
import pillar.agent.config.AgentConfig;
import pillar.agent.config.BackendConfig;
import pillar.agent.configfs.FakeConfigfsTree;
import pillar.agent.configfs.NvmetTarget;
import pillar.agent.metrics.StoreGauges;
import pillar.api.agent.v1.AgentServiceGrpc;
import pillar.api.agent.v1.AllowInitiatorRequest;
import pillar.api.agent.v1.BackendKind;
import pillar.api.agent.v1.CreateVolumeRequest;
import pillar.api.agent.v1.DenyInitiatorRequest;
import pillar.api.agent.v1.ExpandVolumeRequest;
import pillar.api.agent.v1.ExportSpec;
import pillar.api.agent.v1.ExportVolumeRequest;
import pillar.api.agent.v1.GetCapacityRequest;
import pillar.api.agent.v1.UnexportVolumeRequest;
import pillar.api.fencing.FencingToken;
import pillar.api.value.LifecycleUid;
import pillar.runtime.exec.CommandFailedException;
import pillar.runtime.exec.ProcessRunner;
import pillar.runtime.metrics.TimedProcessRunner;
import pillar.runtime.metrics.WorkloadMetrics;
import pillar.runtime.server.WorkloadServer;

/**
 * The agent's meters as a scrape of its health port shows them, after a volume is created and
 * exported and a stale call refused: its host commands and configfs calls timed (the runner and the
 * target made as {@code AgentMain.launch} makes them, over the fakes), the calls and the refusal
 * counted, the stores' gauges read by their background refresher: left out of a scrape while its
 * first refresh is stuck in a command, shown once it ends.
 */
class AgentMetricsIT {
    private static final long MIB = 1L << 20;
    private static final List<BackendConfig> BACKENDS = List.of(new BackendConfig("fast", BackendKind.BACKEND_KIND_LVM_THIN, "vg0", "pool0"));
    private static final Duration PATIENCE = Duration.ofSeconds(60);

    @TempDir
    Path dir;

    private final LifecycleUid lifecycle = LifecycleUid.random();
    private final CountDownLatch callsDone = new CountDownLatch(1);
    private final CountDownLatch refresherHeld = new CountDownLatch(1);
    private final AtomicReference<Thread> refresher = new AtomicReference<>();
    private final WorkloadMetrics metrics = WorkloadMetrics.create("agent");
    private final FakeConfigfsTree configfs = FakeConfigfsTree.create();
    private WorkloadServer agent;
    private ManagedChannel channel;
    private AgentServiceGrpc.AgentServiceBlockingStub stub;

    @BeforeEach
    void start() {
        FakeLvm lvm = new FakeLvm("vg0", 1024 * MIB, dir.resolve("dev")).withThinPool("pool0", 512 * MIB).setUsage("pool0", 40, 10);
        // the store gauges' refresher waits in its first command until the test's calls are done
        ProcessRunner held = command -> {
            if (Thread.currentThread().getName().equals(StoreGauges.THREAD)) {
                refresher.set(Thread.currentThread());
                refresherHeld.countDown();
                try {
                    callsDone.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new CommandFailedException(command, -1, "interrupted", true);
                }
            }
            return lvm.run(command);
        };
        AgentConfig config = new AgentConfig("127.0.0.1", 0, dir.resolve("state"), configfs.root(), Optional.empty(), BACKENDS,
                "127.0.0.1", 0);
        NvmetTarget target = configfs.target(metrics);
        agent = AgentMain.start(config, Backends.create(BACKENDS, new TimedProcessRunner(held, metrics), lvm.host()), target,
                AgentMain.checkState(config, target), metrics);
        channel = Grpc.newChannelBuilderForAddress("127.0.0.1", agent.grpcPort(), InsecureChannelCredentials.create()).build();
        stub = AgentServiceGrpc.newBlockingStub(channel).withDeadlineAfter(60, TimeUnit.SECONDS);
    }

    @AfterEach
    void stop() throws InterruptedException {
        callsDone.countDown();
        channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
        agent.close();
    }

    private pillar.api.agent.v1.FencingToken token(long generation) {
        return FencingToken.of(lifecycle, generation).toProto();
    }

    @Test
    void aScrapeShowsEveryMeterOfTheAgent() throws Exception {
        var volume = stub.createVolume(CreateVolumeRequest.newBuilder().setToken(token(1)).setVolumeId("pvc-metrics")
                .setBackend("fast").setSizeBytes(64 * MIB).build()).getVolume();
        configfs.addBlockDevice(Path.of(volume.getDevicePath()));
        stub.exportVolume(ExportVolumeRequest.newBuilder().setToken(token(1)).setVolumeId("pvc-metrics").setBackend("fast")
                .setExport(ExportSpec.newBuilder().setBindAddress("127.0.0.1").setPort(4420).setAclEnabled(true)).build());
        assertThatThrownBy(() -> stub.expandVolume(ExpandVolumeRequest.newBuilder().setToken(token(0))
                .setVolumeId("pvc-metrics").setBackend("fast").setRequiredBytes(128 * MIB).build()))
                .isInstanceOfSatisfying(StatusRuntimeException.class,
                        e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.FAILED_PRECONDITION));
        long free = stub.getCapacity(GetCapacityRequest.newBuilder().setBackend("fast").build()).getAvailableBytes();

        assertThat(scrape()).as("the stores' first refresh is stuck in a command: the scrape answers without them")
                .contains("pillar_agent_exports{backend=\"fast\"} 1.0\n")
                .doesNotContain("pillar_agent_volumes{").doesNotContain("pillar_agent_store_capacity_bytes{")
                .doesNotContain("pillar_agent_thin_pool_metadata_ratio{");
        callsDone.countDown();
        String scraped = scrape();
        // the stores' readings appear as the refresh reads them, and a scrape reads each gauge on its own, in
        // no set order: one scrape can fall between two readings, so wait for every one (a guard, not a timing)
        for (long deadline = System.nanoTime() + PATIENCE.toNanos();
             !containsEveryStoreGauge(scraped) && System.nanoTime() < deadline; scraped = scrape()) {
            Thread.sleep(20);
        }

        assertThat(scraped)
                .contains("pillar_csi_operation_seconds_count{code=\"OK\",method=\"CreateVolume\",workload=\"agent\"} 1\n")
                .contains("pillar_csi_operation_seconds_count{code=\"OK\",method=\"ExportVolume\",workload=\"agent\"} 1\n")
                .contains("pillar_csi_operation_seconds_count{code=\"FAILED_PRECONDITION\",method=\"ExpandVolume\",workload=\"agent\"} 1\n")
                .contains("pillar_agent_command_seconds_count{command=\"lvcreate\",outcome=\"ok\"} 1\n")
                .contains("pillar_agent_configfs_seconds_count{operation=\"symlink\",outcome=\"ok\"} 1\n")
                .containsPattern("pillar_agent_configfs_seconds_count\\{operation=\"mkdir\",outcome=\"ok\"} [1-9]")
                .contains("pillar_fencing_refusals_total{reason=\"stale_generation\"} 1.0\n")
                .contains("pillar_fencing_refusals_total{reason=\"missing_token\"} 0.0\n")
                .contains("pillar_agent_exports{backend=\"fast\"} 1.0\n")
                .contains("pillar_agent_volumes{backend=\"fast\"} 1.0\n")
                .contains("pillar_agent_store_capacity_bytes{backend=\"fast\"} " + (double) (512 * MIB) + "\n")
                .contains("pillar_agent_store_free_bytes{backend=\"fast\"} " + (double) free + "\n")
                .contains("pillar_agent_thin_pool_data_ratio{backend=\"fast\"} 0.4\n")
                .contains("pillar_agent_thin_pool_metadata_ratio{backend=\"fast\"} 0.1\n")
                .doesNotContain("pvc-metrics").doesNotContain("nqn.");
    }

    @Test
    void theAllowedHostsFollowTheGrantsOfEachExport() throws Exception {
        String host1 = "nqn.2014-08.org.nvmexpress:uuid:00000000-0000-0000-0000-000000000001";
        String host2 = "nqn.2014-08.org.nvmexpress:uuid:00000000-0000-0000-0000-000000000002";
        var volume = stub.createVolume(CreateVolumeRequest.newBuilder().setToken(token(1)).setVolumeId("pvc-hosts")
                .setBackend("fast").setSizeBytes(64 * MIB).build()).getVolume();
        configfs.addBlockDevice(Path.of(volume.getDevicePath()));
        stub.exportVolume(ExportVolumeRequest.newBuilder().setToken(token(1)).setVolumeId("pvc-hosts").setBackend("fast")
                .setExport(ExportSpec.newBuilder().setBindAddress("127.0.0.1").setPort(4420).setAclEnabled(true)).build());
        assertThat(scrape()).contains("pillar_agent_exports{backend=\"fast\"} 1.0\n")
                .contains("pillar_agent_export_allowed_hosts{backend=\"fast\"} 0.0\n");

        for (String host : List.of(host1, host2)) {
            stub.allowInitiator(AllowInitiatorRequest.newBuilder().setToken(token(1)).setVolumeId("pvc-hosts")
                    .setHostNqn(host).build());
        }
        assertThat(scrape()).contains("pillar_agent_export_allowed_hosts{backend=\"fast\"} 2.0\n");

        stub.denyInitiator(DenyInitiatorRequest.newBuilder().setToken(token(1)).setVolumeId("pvc-hosts").setHostNqn(host1)
                .build());
        assertThat(scrape()).contains("pillar_agent_export_allowed_hosts{backend=\"fast\"} 1.0\n").doesNotContain("nqn.");

        stub.unexportVolume(UnexportVolumeRequest.newBuilder().setToken(token(1)).setVolumeId("pvc-hosts").build());
        assertThat(scrape()).contains("pillar_agent_exports{backend=\"fast\"} 0.0\n")
                .contains("pillar_agent_export_allowed_hosts{backend=\"fast\"} 0.0\n");
    }

    @Test
    void closingTheAgentStopsTheStoreGaugesRefresherEvenStuckInACommand() throws Exception {
        assertThat(refresherHeld.await(PATIENCE.toSeconds(), TimeUnit.SECONDS)).as("the refresher runs a command").isTrue();
        agent.close();
        refresher.get().join(PATIENCE);
        assertThat(refresher.get().isAlive()).as("the refresher ended").isFalse();
        assertThat(callsDone.getCount()).as("its command was interrupted, not let go").isOne();
    }

    private static boolean containsEveryStoreGauge(String scraped) {
        return Stream.of("volumes", "store_capacity_bytes", "store_free_bytes", "thin_pool_data_ratio",
                "thin_pool_metadata_ratio").allMatch(gauge -> scraped.contains("pillar_agent_" + gauge + "{"));
    }

    private String scrape() throws Exception {
        HttpURLConnection connection = (HttpURLConnection) URI.create("http://127.0.0.1:" + agent.healthPort()
                + WorkloadMetrics.PATH).toURL().openConnection();
        try {
            assertThat(connection.getResponseCode()).isEqualTo(200);
            return new String(connection.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        } finally {
            connection.disconnect();
        }
    }
}
