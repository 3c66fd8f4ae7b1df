package pillar.agent.service;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import pillar.agent.AgentMain;
import pillar.agent.StartupChecks;
import pillar.agent.backend.Backends;
import pillar.agent.backend.lvm.FakeLvm;
import pillar.agent.backend.zfs.FakeZfs;
import pillar.agent.config.AgentConfig;
import pillar.agent.config.BackendConfig;
import pillar.agent.configfs.FakeConfigfsTree;
import pillar.api.agent.v1.AgentServiceGrpc;
import pillar.api.agent.v1.AllowInitiatorRequest;
import pillar.api.agent.v1.BackendKind;
import pillar.api.agent.v1.CreateVolumeRequest;
import pillar.api.agent.v1.DeleteVolumeRequest;
import pillar.api.agent.v1.ExpandVolumeRequest;
import pillar.api.agent.v1.ExportSpec;
import pillar.api.agent.v1.ExportVolumeRequest;
import pillar.api.agent.v1.UnexportVolumeRequest;
import pillar.runtime.exec.Command;
import pillar.runtime.exec.CommandResult;
import pillar.runtime.exec.ProcessRunner;
import pillar.api.fencing.FencingToken;
import pillar.runtime.metrics.WorkloadMetrics;
import pillar.runtime.server.WorkloadServer;
import pillar.api.value.LifecycleUid;

/**
 * Pins the host commands each agent call runs, per backend, over real gRPC on the stateful fakes of
 * LVM and ZFS (without udev, as in the test VM) and the fake configfs: under emulation every extra
 * process costs about a second, so a call that starts running one more shows here, not as a slower
 * figure later. Also prints the configfs changes of each call. Asserts command lists, never times.
 * The agent runs with its metrics disabled, so without the store gauges' background refresher:
 * its reads (at the end of start-up, then every 30 s) are no call's, and would warm the backends'
 * caches (a VG's extent size) at a moment of their own, so that a call ran one command fewer or not.
 */
class AgentCallCommandsIT {
    private static final long MIB = 1L << 20;
    private static final String ZVOL_ID = "/lib/udev/zvol_id";
    private static final String HOST = "nqn.2014-08.org.nvmexpress:uuid:0f9c2a6e-7c1b-4b8e-9a57-3e2d1c0b9a88";

    @TempDir
    Path dir;

    private final List<String> commands = new ArrayList<>();
    private final Map<String, LifecycleUid> lifecycles = new LinkedHashMap<>();
    private FakeConfigfsTree configfs;
    private WorkloadServer agent;
    private ManagedChannel channel;
    private AgentServiceGrpc.AgentServiceBlockingStub stub;

    @BeforeEach
    void start() {
        Path dev = dir.resolve("dev");
        FakeLvm lvm = new FakeLvm("vg0", 1024 * MIB, dev).withThinPool("pool0", 512 * MIB);
        FakeZfs zfs = new FakeZfs("tank", 1024 * MIB, dev, dir.resolve("sys"), ZVOL_ID, FakeZfs.Devices.NO_UDEV)
                .withFilesystem("tank/k8s");
        ProcessRunner tools = command -> record(command, command.program().equals("zfs") || command.program().equals(ZVOL_ID)
                ? zfs : lvm);
        List<BackendConfig> backends = List.of(
                new BackendConfig("linear", BackendKind.BACKEND_KIND_LVM_LINEAR, "vg0", ""),
                new BackendConfig("thin", BackendKind.BACKEND_KIND_LVM_THIN, "vg0", "pool0"),
                new BackendConfig("zfs", BackendKind.BACKEND_KIND_ZFS_ZVOL, "tank", "k8s"));
        configfs = FakeConfigfsTree.create();
        AgentConfig config = new AgentConfig("127.0.0.1", 0, dir.resolve("state"), configfs.root(), Optional.empty(),
                backends, "127.0.0.1", 0);
        var host = new Backends.Host(dev, dir.resolve("sys"), Path.of(ZVOL_ID), Duration.ofSeconds(5), Duration.ofSeconds(5));
        var volumeBackends = Backends.create(backends, tools, host);
        StartupChecks.run(configfs.target(), configfs.root(), dir.resolve("sys"), volumeBackends); // as AgentMain.run does
        var target = configfs.target();
        agent = AgentMain.start(config, volumeBackends, target, AgentMain.checkState(config, target),
                WorkloadMetrics.disabled("agent"));
        channel = Grpc.newChannelBuilderForAddress("127.0.0.1", agent.grpcPort(), InsecureChannelCredentials.create()).build();
        stub = AgentServiceGrpc.newBlockingStub(channel).withDeadlineAfter(60, TimeUnit.SECONDS);
    }

    private synchronized CommandResult record(Command command, ProcessRunner tool) {
        commands.add(command.program().equals("zfs") ? "zfs " + command.argv().get(1) : command.program());
        return tool.run(command);
    }

    @AfterEach
    void stop() throws Exception {
        channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
        agent.close();
    }

    @Test
    void eachCallRunsOnlyTheCommandsItNeeds() {
        // the capacity checks, then the look for hidden zvols nothing depends on any more
        assertThat(commands).as("start-up capacity checks").containsExactly("vgs", "lvs", "zfs get", "zfs get");

        Map<String, List<String>> linear = lifecycle("linear", "pvc-linear-1");
        assertThat(linear).containsExactly(
                Map.entry("CreateVolume", List.of("lvcreate")), // the extent size is known from start-up's vgs
                Map.entry("ExportVolume", List.of("lvs")), // exists, is ours, its device
                Map.entry("AllowInitiator", List.of()),
                Map.entry("ExpandVolume", List.of("lvs", "lvextend")), // ours, size and extent size; grow
                Map.entry("UnexportVolume", List.of()),
                // ours (never remove another's LV); mark it being zeroed; zero its 128 MiB, 8 MiB a command; remove
                Map.entry("DeleteVolume", java.util.stream.Stream.of(List.of("lvs", "lvchange"), java.util.Collections.nCopies(16,
                        "blkdiscard"), List.of("lvremove")).flatMap(List::stream).toList()));

        Map<String, List<String>> thin = lifecycle("thin", "pvc-thin-1");
        // the pool's zeroing, then the extent size (not in the pool's report)
        assertThat(thin.get("CreateVolume")).containsExactly("lvs", "vgs", "lvcreate");
        assertThat(lifecycle("thin", "pvc-thin-2")).containsExactly(
                // one lvs of the group: the pool's zeroing, what its thin LVs add up to, whether pvc-thin-2 exists
                Map.entry("CreateVolume", List.of("lvs", "lvcreate")),
                Map.entry("ExportVolume", List.of("lvs")),
                Map.entry("AllowInitiator", List.of()),
                // ours, its size; then what the pool's thin LVs add up to (the over-provisioning ratio); grow
                Map.entry("ExpandVolume", List.of("lvs", "lvs", "lvextend")),
                Map.entry("UnexportVolume", List.of()),
                Map.entry("DeleteVolume", List.of("lvs", "lvremove")));

        assertThat(lifecycle("zfs", "pvc-zfs-1")).containsExactly(
                Map.entry("CreateVolume", List.of("zfs create", ZVOL_ID)), // no udev link: zvol_id names /dev/zdN
                Map.entry("ExportVolume", List.of("zfs get", ZVOL_ID)),
                Map.entry("AllowInitiator", List.of()),
                Map.entry("ExpandVolume", List.of("zfs get", "zfs set")),
                Map.entry("UnexportVolume", List.of()),
                // ours; destroy; hidden zvols that this delete may have freed
                Map.entry("DeleteVolume", List.of("zfs get", "zfs destroy", "zfs get")));
    }

    @Test
    void repeatedCallsReadOnlyWhenTheToolRefuses() {
        lifecycleStep("linear", "pvc-r", "CreateVolume");
        lifecycleStep("zfs", "pvc-z", "CreateVolume");
        assertThat(lifecycleStep("linear", "pvc-r", "CreateVolume")).containsExactly("lvcreate", "lvs"); // exists: read it
        assertThat(lifecycleStep("zfs", "pvc-z", "CreateVolume")).containsExactly("zfs create", "zfs get", ZVOL_ID);
        lifecycleStep("linear", "pvc-r", "DeleteVolume");
        assertThat(lifecycleStep("linear", "pvc-r", "DeleteVolume")).isEmpty(); // the tombstone answers
    }

    /** Every call of one volume's life, with the commands each ran; prints them and the configfs changes. */
    private Map<String, List<String>> lifecycle(String backend, String id) {
        Map<String, List<String>> ran = new LinkedHashMap<>();
        for (String call : List.of("CreateVolume", "ExportVolume", "AllowInitiator", "ExpandVolume", "UnexportVolume",
                "DeleteVolume")) {
            int changes = configfs.changes().size();
            ran.put(call, lifecycleStep(backend, id, call));
            List<String> configfsChanges = configfs.changes().subList(changes, configfs.changes().size());
            if (call.equals("UnexportVolume")) {
                assertThat(configfs.entries("subsystems")).isEmpty();
            }
            System.out.printf("[agent-commands] %-7s %-15s commands %s; configfs: %d change(s) %s%n", backend, call,
                    ran.get(call), configfsChanges.size(), configfsChanges);
        }
        return ran;
    }

    private List<String> lifecycleStep(String backend, String id, String call) {
        pillar.api.agent.v1.FencingToken token = FencingToken.of(lifecycles.computeIfAbsent(id, k -> LifecycleUid.random()),
                call.equals("DeleteVolume") ? 2 : 1).toProto();
        int before = commands.size();
        switch (call) {
            case "CreateVolume" -> configfs.addBlockDevice(Path.of(stub.createVolume(CreateVolumeRequest.newBuilder().setToken(token)
                    .setVolumeId(id).setBackend(backend).setSizeBytes(64 * MIB).build()).getVolume().getDevicePath()));
            case "ExportVolume" -> stub.exportVolume(ExportVolumeRequest.newBuilder().setToken(token).setVolumeId(id)
                    .setBackend(backend).setExport(ExportSpec.newBuilder().setBindAddress("127.0.0.1").setPort(4420)
                            .setAclEnabled(true)).build());
            case "AllowInitiator" -> stub.allowInitiator(AllowInitiatorRequest.newBuilder().setToken(token).setVolumeId(id)
                    .setHostNqn(HOST).build());
            case "ExpandVolume" -> assertThat(stub.expandVolume(ExpandVolumeRequest.newBuilder().setToken(token).setVolumeId(id)
                    .setBackend(backend).setRequiredBytes(128 * MIB).build()).getSizeBytes()).isEqualTo(128 * MIB);
            case "UnexportVolume" -> stub.unexportVolume(UnexportVolumeRequest.newBuilder().setToken(token).setVolumeId(id).build());
            case "DeleteVolume" -> stub.deleteVolume(DeleteVolumeRequest.newBuilder().setToken(token).setVolumeId(id)
                    .setBackend(backend).build());
            default -> throw new IllegalArgumentException(call);
        }
        synchronized (this) {
            return List.copyOf(commands.subList(before, commands.size()));
        }
    }
}
