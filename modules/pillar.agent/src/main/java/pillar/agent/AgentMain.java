package pillar.agent;

import java.io.PrintStream;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.logging.Logger;

import io.helidon.common.configurable.Resource;
import io.helidon.common.tls.Tls;
import io.helidon.common.tls.TlsClientAuth;
import io.helidon.logging.common.LogConfig;
import pillar.agent.config.AgentConfig;
import pillar.agent.backend.Backends;
import pillar.agent.backend.VolumeBackend;
import pillar.agent.configfs.ConfigfsNvmetTarget;
import pillar.agent.configfs.NvmetTarget;
import pillar.agent.export.ExportReapply;
import pillar.agent.export.ExportStore;
import pillar.agent.export.Exporter;
import pillar.agent.fencing.Fence;
import pillar.agent.fencing.MarkStore;
import pillar.agent.fencing.VolumeLocks;
import pillar.agent.service.AgentGrpcService;
import pillar.agent.service.AgentOperations;
import pillar.api.exec.SystemProcessRunner;
import pillar.api.server.WorkloadConfig;
import pillar.api.server.WorkloadServer;

/**
 * pillar-agent: runs on a storage node, serves the agent API over TCP (plaintext by default, mTLS
 * when certificate files are configured) and health over HTTP.
 */
public final class AgentMain {
    private static final Logger LOG = Logger.getLogger(AgentMain.class.getName());

    private AgentMain() {
    }

    public static void main(String[] args) {
        LogConfig.configureRuntime();
        int status = launch(args, Path.of("/sys"), System.err);
        if (status != 0) {
            System.exit(status);
        }
    }

    /**
     * What {@link #main} does but exit: reads the configuration, checks the host ({@link StartupChecks})
     * and starts serving. Returns 0 when it serves, 2 when it refused to start, after writing why to
     * {@code err}.
     *
     * @param sysRoot sysfs, where the checks find loaded modules
     */
    static int launch(String[] args, Path sysRoot, PrintStream err) {
        AgentConfig config;
        try {
            config = AgentConfig.from(WorkloadConfig.load(args));
        } catch (IllegalArgumentException e) {
            err.println("pillar-agent: refusing to start: " + e.getMessage());
            return 2;
        }
        NvmetTarget target = new ConfigfsNvmetTarget(config.configfsRoot());
        Map<String, VolumeBackend> backends = Backends.create(config.backends(), new SystemProcessRunner());
        long checks = System.nanoTime();
        StartupChecks.Report report = StartupChecks.run(target, config.configfsRoot(), sysRoot, backends);
        LOG.info(() -> "start-up checks took " + (System.nanoTime() - checks) / 1_000_000 + " ms");
        report.notes().forEach(LOG::info);
        report.warnings().forEach(LOG::warning);
        if (!report.refusals().isEmpty()) {
            report.refusals().forEach(reason -> err.println("pillar-agent: refusing to start: " + reason));
            return 2;
        }
        WorkloadServer server = start(config, backends, target);
        LOG.info(() -> "pillar-agent ready: agent API on " + config.listenHost() + ":" + server.grpcPort()
                + (config.tls().isPresent() ? " (mTLS)" : " (plaintext)") + ", health on port " + server.healthPort()
                + ", backends " + config.backends().stream().map(b -> b.name()).toList());
        return 0;
    }

    /**
     * Starts the agent's server on the given backends and target; the caller owns it. Readiness
     * turns true once every durable export has been re-applied to the kernel (its configuration
     * does not survive a reboot).
     */
    public static WorkloadServer start(AgentConfig config, Map<String, VolumeBackend> backends, NvmetTarget target) {
        ExportStore exports = new ExportStore(config.stateDir());
        Exporter exporter = new Exporter(target);
        AgentOperations operations = new AgentOperations(backends,
                new Fence(new MarkStore(config.stateDir()), new VolumeLocks()), exports, exporter);
        AtomicBoolean reapplied = new AtomicBoolean(false);
        WorkloadServer.Builder builder = WorkloadServer.builder()
                .tcp(config.listenHost(), config.listenPort())
                .health(config.healthHost(), config.healthPort())
                .service(new AgentGrpcService(config.backends(), operations))
                .readiness("exports-reapplied", reapplied::get);
        config.tls().ifPresentOrElse(files -> builder.tls(mutualTls(files)), () -> LOG.warning(
                "*** the agent API is served WITHOUT TLS: any host that reaches port " + config.listenPort()
                        + " can create, export and delete volumes. Configure agent.tls (cert, key, ca) for mTLS. ***"));
        WorkloadServer server = builder.start();
        ExportReapply.run(exports, exporter, backends);
        reapplied.set(true);
        return server;
    }

    private static Tls mutualTls(AgentConfig.TlsFiles files) {
        return Tls.builder()
                .privateKey(keys -> keys.pem(pem -> pem.key(Resource.create(files.key()))))
                .privateKeyCertChain(keys -> keys.pem(pem -> pem.certChain(Resource.create(files.cert()))))
                .trust(keys -> keys.pem(pem -> pem.certificates(Resource.create(files.ca()))))
                .clientAuth(TlsClientAuth.REQUIRED)
                .build();
    }
}
