package pillar.bench.fake;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;

import io.helidon.logging.common.LogConfig;
import pillar.agent.AgentMain;
import pillar.agent.backend.VolumeBackend;
import pillar.agent.config.AgentConfig;
import pillar.agent.config.BackendConfig;
import pillar.agent.configfs.FakeConfigfsTree;
import pillar.api.agent.v1.BackendKind;
import pillar.runtime.durable.AtomicFiles;
import pillar.api.value.ByteSize;
import pillar.api.value.VolumeId;
import pillar.bench.Args;
import pillar.runtime.metrics.WorkloadMetrics;

/**
 * The real pillar-agent ({@link AgentMain#start}: real gRPC server, fencing marks and export records
 * on disk, the real nvmet writer) on the fakes of its kernel and tools: the fake configfs tree of its
 * tests (kernel 6.1's nvmet in memory) and a {@link MemoryBackend}. Started by the benchmarks as its
 * own JVM, like the deployed agent.
 *
 * <p>{@code --port=P --health-port=H --state=DIR [--volume-bytes=B] [--metrics=false]} (metrics, with
 * the configfs calls timed, are served unless {@code --metrics=false}). On a state directory that holds
 * export records (a restart), the volumes and their block devices exist again before the agent starts,
 * as LVM re-activates them at boot, and the tree is empty, as configfs is after a reboot: the agent
 * re-applies every export before it turns ready. Prints the configfs changes it made to get ready.
 */
public final class FakeAgentMain {
    static final String BACKEND = "fast";
    static final String VOLUME_GROUP = "benchvg";
    static final String THIN_POOL = "pool0";
    private static final long TOTAL = 1L << 50; // 1 PiB: room for any run

    private FakeAgentMain() {
    }

    /** The volume IDs the agent's export records are named after (the records themselves are the agent's to read). */
    private static List<VolumeId> recordedVolumes(Path exports) throws IOException {
        if (!Files.isDirectory(exports)) {
            return List.of();
        }
        try (Stream<Path> files = Files.list(exports)) {
            return files.filter(f -> !AtomicFiles.isTemporary(f)).map(f -> VolumeId.of(f.getFileName().toString())).toList();
        }
    }

    public static void main(String[] arguments) throws IOException {
        LogConfig.configureRuntime();
        Args args = Args.parse(arguments);
        Path state = args.path("state");
        FakeConfigfsTree tree = FakeConfigfsTree.create();
        MemoryBackend backend = new MemoryBackend(BACKEND, TOTAL, Path.of("/dev"), tree);

        // the volumes of the export records (named after them) exist, as LVM keeps them across a reboot
        long restoring = System.nanoTime();
        ByteSize size = ByteSize.of(args.number("volume-bytes", ByteSize.GIB));
        List<VolumeId> recorded = recordedVolumes(state.resolve("exports"));
        recorded.forEach(id -> backend.create(id, size, Map.of()));
        long restored = System.nanoTime() - restoring;

        List<BackendConfig> backends = List.of(new BackendConfig(BACKEND, BackendKind.BACKEND_KIND_LVM_THIN, VOLUME_GROUP,
                THIN_POOL));
        AgentConfig config = new AgentConfig("127.0.0.1", args.integer("port"), state, tree.root(), Optional.empty(), backends,
                "127.0.0.1", args.integer("health-port"));
        long starting = System.nanoTime();
        WorkloadMetrics metrics = Boolean.parseBoolean(args.get("metrics", "true")) ? WorkloadMetrics.create("agent")
                : WorkloadMetrics.disabled("agent");
        var target = tree.target(metrics);
        AgentMain.start(config, Map.<String, VolumeBackend>of(BACKEND, backend), target, AgentMain.checkState(config, target),
                metrics);
        System.out.printf("bench-agent: ready; fake kernel set-up %d ms (%d volumes), agent start %d ms, configfs changes %d%n",
                restored / 1_000_000, recorded.size(), (System.nanoTime() - starting) / 1_000_000, tree.changes().size());
    }
}
