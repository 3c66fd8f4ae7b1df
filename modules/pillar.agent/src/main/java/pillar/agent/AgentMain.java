package pillar.agent;

import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Collectors;
import java.util.logging.Logger;

import io.helidon.common.tls.Tls;
import io.helidon.config.Config;
import io.helidon.logging.common.LogConfig;
import pillar.agent.config.AgentConfig;
import pillar.agent.config.BackendConfig;
import pillar.agent.config.CallBudgets;
import pillar.api.agent.v1.BackendKind;
import pillar.api.value.Nqn;
import pillar.agent.backend.Backends;
import pillar.agent.backend.VolumeBackend;
import pillar.agent.configfs.ConfigfsNvmetTarget;
import pillar.agent.configfs.NvmetTarget;
import pillar.agent.configfs.TargetPresence;
import pillar.agent.export.ExportRecord;
import pillar.agent.export.SubsystemOwnership;
import pillar.agent.export.ExportStore;
import pillar.agent.export.NfsExportReapply;
import pillar.agent.export.NfsExporter;
import pillar.agent.nfs.NfsdWrites;
import pillar.agent.nfs.KernelNfsServer;
import pillar.agent.nfs.NfsServer;
import pillar.agent.export.Exporter;
import pillar.agent.fencing.Fence;
import pillar.agent.fencing.FencingRefusals;
import pillar.agent.fencing.MarkStore;
import pillar.agent.fencing.WaitingVolumeLocks;
import pillar.agent.metrics.StoreGauges;
import pillar.agent.service.AdmissionGate;
import pillar.agent.service.AgentGrpcService;
import pillar.agent.service.AgentOperations;
import pillar.agent.state.DamagedRecords;
import pillar.agent.state.InstallationId;
import pillar.agent.state.StateCheck;
import pillar.agent.state.StateDirMigration;
import pillar.agent.state.StateRecovery;
import pillar.runtime.exec.ProcessRunner;
import pillar.runtime.exec.SystemProcessRunner;
import pillar.runtime.metrics.TimedProcessRunner;
import pillar.runtime.metrics.WorkloadMetrics;
import pillar.runtime.server.CertificateFiles;
import pillar.runtime.server.ListenException;
import pillar.runtime.server.LogFormat;
import pillar.runtime.server.LogLevel;
import pillar.runtime.server.ServerLimits;
import pillar.runtime.server.MutualTls;
import pillar.runtime.server.PeerNames;
import pillar.runtime.server.WorkloadConfig;
import pillar.runtime.server.WorkloadServer;

/**
 * pillar-agent: runs on a storage node, serves the agent API over TCP (plaintext by default, mTLS
 * when certificate files are configured) and health over HTTP.
 */
public final class AgentMain {
    private static final Logger LOG = Logger.getLogger(AgentMain.class.getName());
    /** The flag that runs {@link StateRecovery} and exits instead of serving. */
    static final String RECOVER_STATE = "--recover-state";
    /** The deadline of each exportfs command. */
    static final Duration EXPORTFS_TIMEOUT = Duration.ofSeconds(30);
    /** The exit status when the agent cannot serve: a port it cannot listen on, or a start-up that failed. */
    static final int CANNOT_SERVE = 1;
    static final String RECOVERY_COMMAND = "pillar-agent --config <this agent's configuration file> " + RECOVER_STATE;

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
     * {@code err}, {@value #CANNOT_SERVE} when it cannot serve (a port still in use after
     * {@code server.bind-timeout-seconds}, or a start-up that failed), after writing why. With {@value #RECOVER_STATE} it runs {@link StateRecovery} instead and returns 0
     * when the state was rebuilt, 1 when nothing was written.
     *
     * @param sysRoot sysfs, where the checks find loaded modules
     */
    static int launch(String[] args, Path sysRoot, PrintStream err) {
        List<String> rest = new ArrayList<>(List.of(args));
        boolean recover = rest.remove(RECOVER_STATE);
        AgentConfig config;
        WorkloadMetrics metrics;
        ServerLimits limits;
        Duration callBudget;
        try {
            Config root = WorkloadConfig.load(rest.toArray(String[]::new));
            LogFormat.from(root).apply();
            LogLevel.from(root).apply();
            config = AgentConfig.from(root);
            callBudget = CallBudgets.from(root);
            metrics = WorkloadMetrics.from(root, "agent");
            limits = ServerLimits.from(root);
        } catch (IllegalArgumentException e) {
            err.println("pillar-agent: refusing to start: " + e.getMessage());
            return 2;
        }
        NvmetTarget target = new ConfigfsNvmetTarget(config.configfsRoot(), metrics);
        ProcessRunner commands = new TimedProcessRunner(new SystemProcessRunner(), metrics);
        Function<InstallationId, Map<String, VolumeBackend>> backendsFor = installation -> Backends.create(config.backends(),
                commands, Backends.Host.system(), installation);
        try {
            // before the state is checked or recovered: an older install's state moves to this release's directory
            config.legacyStateDir().ifPresent(legacy -> StateDirMigration.run(config.stateDir(), legacy, config.nodeName(),
                    config.installationId().orElseThrow()));
        } catch (java.io.UncheckedIOException e) {
            err.println("pillar-agent: refusing to start: " + e.getMessage());
            return 2;
        }
        if (recover) {
            if (target.presence() == TargetPresence.NOT_MOUNTED || target.presence() == TargetPresence.NVMET_MISSING) {
                err.println("pillar-agent: cannot recover the state: no nvmet target at " + config.configfsRoot());
                return 2;
            }
            return StateRecovery.run(config.stateDir(), config.nodeName(), config.installationId(), target, backendsFor,
                    Clock.systemUTC(), err) ? 0 : 1;
        }
        long checks = System.nanoTime();
        // the checks read capacities only, which no installation changes
        StartupChecks.Report report = StartupChecks.zfsTools(config.backends(), commands, Backends.Host.system().commandTimeout(),
                sysRoot).plus(StartupChecks.run(target, config.configfsRoot(), sysRoot,
                backendsFor.apply(config.installationId().orElse(InstallationId.EMBEDDED))));
        LOG.info(() -> "start-up checks took " + (System.nanoTime() - checks) / 1_000_000 + " ms");
        report.notes().forEach(LOG::info);
        report.warnings().forEach(LOG::warning);
        List<String> datasetBackends = config.backends().stream().filter(b -> b.kind() == BackendKind.BACKEND_KIND_ZFS_DATASET)
                .map(BackendConfig::name).toList();
        if (!datasetBackends.isEmpty()) {
            // in a container nfsd's filesystem is not mounted in the agent's own /proc (docs/nfs.md)
            pillar.agent.nfs.NfsdFilesystem.mountIfMissing(commands, EXPORTFS_TIMEOUT, Path.of("/proc"));
        }
        StartupChecks.nfsWarnings(datasetBackends, datasetBackends.isEmpty() ? Optional.empty()
                : pillar.agent.nfs.NfsPresence.problem(Path.of("/proc"))).forEach(datasetBackends.isEmpty() ? LOG::info : LOG::warning);
        if (!report.refusals().isEmpty()) {
            report.refusals().forEach(reason -> err.println("pillar-agent: refusing to start: " + reason));
            return 2;
        }
        // a configured installation is the state's whatever the check finds: its backends serve both
        Optional<Map<String, VolumeBackend>> configured = config.installationId().map(backendsFor);
        StateCheck.Verdict state = checkState(config, target, configured);
        Map<String, VolumeBackend> backends = configured.orElseGet(() -> backendsFor.apply(state.installation()));
        WorkloadServer server;
        try {
            server = start(config, backends, target, state, metrics, new KernelNfsServer(commands, EXPORTFS_TIMEOUT, Path.of("/etc/exports"),
                    Path.of("/var/lib/nfs/etab"), Path.of("/proc"), new NfsdWrites(NfsdWrites.DEADLINE, NfsdWrites.IN_FLIGHT).register(metrics)),
                    limits, callBudget);
        } catch (IllegalArgumentException e) {
            // unusable certificate files (unreadable, not PEM, a key of another certificate)
            err.println("pillar-agent: refusing to start: " + e.getMessage());
            return 2;
        } catch (ListenException e) {
            err.println("pillar-agent: cannot listen: " + e.getMessage());
            return CANNOT_SERVE;
        } catch (RuntimeException e) {
            // never a process that exits 0, or lingers, without serving: the supervisor restarts it
            LOG.log(java.util.logging.Level.SEVERE, "start-up failed", e);
            err.println("pillar-agent: start-up failed: " + e);
            return CANNOT_SERVE;
        }
        // a clone's background copy stops at a checkpoint (fsynced, tagged) rather than mid-chunk
        Runtime.getRuntime().addShutdownHook(Thread.ofPlatform().name("backends-stop").unstarted(
                () -> backends.values().forEach(VolumeBackend::close)));
        // Helidon's own hook only stops serving: closing the server runs its close actions too, which stop the
        // store gauges' refresher (a command it waits for killed)
        Runtime.getRuntime().addShutdownHook(Thread.ofPlatform().name("agent-stop").unstarted(server::close));
        LOG.info(() -> (state instanceof StateCheck.Verdict.Missing ? "pillar-agent serving reads only (" + StateCheck.REASON + ")"
                : "pillar-agent ready") + ": agent API on " + config.listenHost() + ":" + server.grpcPort()
                + (config.tls().isPresent() ? " (mTLS)" : " (plaintext)") + ", health on port " + server.healthPort()
                + ", backends " + config.backends().stream().map(b -> b.name()).toList());
        return 0;
    }

    /** {@link #start(AgentConfig, Map, NvmetTarget, StateCheck.Verdict)} after checking the state directory now. */
    public static WorkloadServer start(AgentConfig config, Map<String, VolumeBackend> backends, NvmetTarget target) {
        return start(config, backends, target, checkState(config, target));
    }

    /**
     * Whether the state directory is this agent's ({@link StateCheck}); writes its identity at a first start.
     * Every live pillar-csi subsystem counts as possibly this agent's.
     */
    public static StateCheck.Verdict checkState(AgentConfig config, NvmetTarget target) {
        return StateCheck.run(config.stateDir(), config.nodeName(), config.installationId(),
                new Exporter(target).exportedSubsystems(), RECOVERY_COMMAND, Clock.systemUTC());
    }

    /**
     * {@link #checkState(AgentConfig, NvmetTarget)}, where a configured installation's live subsystems are
     * only those its backends ({@code configuredBackends}) may hold ({@link SubsystemOwnership}): another installation's exports on the
     * same host neither make a new installation's first start wait for a recovery nor are taken for its own.
     */
    static StateCheck.Verdict checkState(AgentConfig config, NvmetTarget target,
                                         Optional<Map<String, VolumeBackend>> configuredBackends) {
        List<Nqn> live = new Exporter(target).exportedSubsystems();
        List<Nqn> possiblyOurs = configuredBackends.isEmpty() || live.isEmpty() ? live
                : SubsystemOwnership.of(live, configuredBackends.get()).possiblyOurs();
        return StateCheck.run(config.stateDir(), config.nodeName(), config.installationId(), possiblyOurs, RECOVERY_COMMAND,
                Clock.systemUTC());
    }

    /**
     * {@link #start(AgentConfig, Map, NvmetTarget, StateCheck.Verdict, WorkloadMetrics)} with metrics of its
     * own, served.
     */
    public static WorkloadServer start(AgentConfig config, Map<String, VolumeBackend> backends, NvmetTarget target,
                                       StateCheck.Verdict state) {
        return start(config, backends, target, state, WorkloadMetrics.create("agent"));
    }

    /**
     * Starts the agent's server on the given backends and target, within the default {@link ServerLimits};
     * the caller owns it. Returns once
     * start-up is over: the server serves reads at once, but admits calls that change state only
     * after every durable export has been re-applied to the kernel (its configuration does not
     * survive a reboot), and readiness turns true then. When the state directory is not this
     * agent's ({@link StateCheck.Verdict.Missing}) nothing is re-applied or pruned, every change is
     * refused for good, readiness stays down and the condition is logged as an error every minute.
     *
     * <p>{@code metrics} are served at {@code /metrics} on the health port, with every call timed, the
     * fencing refusals counted and the stores' gauges ({@link StoreGauges}, refreshed in the background
     * from the end of start-up until the server is closed, unless the metrics are disabled); host
     * commands and configfs calls are timed by the backends' runner and the target, when they were made
     * with the same metrics (as {@link #launch} makes them). The meters are registered here: one start
     * per metrics.
     */
    public static WorkloadServer start(AgentConfig config, Map<String, VolumeBackend> backends, NvmetTarget target,
                                       StateCheck.Verdict state, WorkloadMetrics metrics) {
        return start(config, backends, target, state, metrics, NfsServer.absent("this agent was started without an NFS server"));
    }

    /**
     * {@link #start(AgentConfig, Map, NvmetTarget, StateCheck.Verdict, WorkloadMetrics)} with the host's NFS
     * server, whose durable exports are re-applied after the NVMe-oF ones ({@link NfsExportReapply}).
     */
    public static WorkloadServer start(AgentConfig config, Map<String, VolumeBackend> backends, NvmetTarget target,
                                       StateCheck.Verdict state, WorkloadMetrics metrics, NfsServer nfs) {
        return start(config, backends, target, state, metrics, nfs, ServerLimits.DEFAULTS, AgentGrpcService.CALL_BUDGET);
    }

    /** {@link #start(AgentConfig, Map, NvmetTarget, StateCheck.Verdict, WorkloadMetrics, NfsServer)} within {@code limits}. */
    public static WorkloadServer start(AgentConfig config, Map<String, VolumeBackend> backends, NvmetTarget target,
                                       StateCheck.Verdict state, WorkloadMetrics metrics, NfsServer nfs, ServerLimits limits) {
        return start(config, backends, target, state, metrics, nfs, limits, AgentGrpcService.CALL_BUDGET);
    }

    /** {@link #start(AgentConfig, Map, NvmetTarget, StateCheck.Verdict, WorkloadMetrics, NfsServer)} with each call's budget. */
    public static WorkloadServer start(AgentConfig config, Map<String, VolumeBackend> backends, NvmetTarget target,
                                       StateCheck.Verdict state, WorkloadMetrics metrics, NfsServer nfs, Duration callBudget) {
        return start(config, backends, target, state, metrics, nfs, ServerLimits.DEFAULTS, callBudget);
    }

    /**
     * {@link #start(AgentConfig, Map, NvmetTarget, StateCheck.Verdict, WorkloadMetrics, NfsServer)} within
     * {@code limits}, with each call's budget. A port still in use is waited for within
     * {@code limits.bindTimeout()}, then a {@link ListenException}; a failure after the server started
     * closes it before it is thrown.
     */
    public static WorkloadServer start(AgentConfig config, Map<String, VolumeBackend> backends, NvmetTarget target,
                                       StateCheck.Verdict state, WorkloadMetrics metrics, NfsServer nfs, ServerLimits limits,
                                       Duration callBudget) {
        DamagedRecords damaged = new DamagedRecords();
        damaged.register(metrics);
        ExportStore exports = new ExportStore(config.stateDir(), damaged);
        Exporter exporter = new Exporter(target);
        NfsExporter nfsExporter = new NfsExporter(nfs, config.backends().stream()
                .filter(b -> b.kind() == BackendKind.BACKEND_KIND_ZFS_DATASET).map(BackendConfig::name).collect(Collectors.toSet()));
        FencingRefusals refusals = new FencingRefusals(metrics);
        MarkStore marks = new MarkStore(config.stateDir(), damaged);
        MarkStore snapshotMarks = MarkStore.snapshots(config.stateDir(), damaged);
        // a damaged mark is reported now, not at the first call on its volume
        marks.check();
        snapshotMarks.check();
        AgentOperations operations = new AgentOperations(backends,
                new Fence(marks, new WaitingVolumeLocks(), refusals),
                new Fence(snapshotMarks, new WaitingVolumeLocks(), refusals), exports, exporter, nfsExporter);
        StoreGauges gauges = StoreGauges.register(metrics, config.backends(), backends, exports);
        List<ExportRecord> records = state instanceof StateCheck.Verdict.Ready ? exports.list(ExportRecord.class) : List.of();
        AdmissionGate gate = switch (state) {
            case StateCheck.Verdict.Missing missing -> AdmissionGate.refusing(StateCheck.REASON, missing.message());
            case StateCheck.Verdict.Ready ready -> AdmissionGate.reapplying(records.size());
        };
        WorkloadServer.Builder builder = WorkloadServer.builder()
                .tcp(config.listenHost(), config.listenPort())
                .health(config.healthHost(), config.healthPort())
                .limits(limits)
                .metrics(metrics)
                .service(new AgentGrpcService(config.backends(), operations, gate, nfs::problem,
                        () -> damaged.list().stream().map(DamagedRecords.Damage::describe).toList(), callBudget))
                .readiness(state instanceof StateCheck.Verdict.Missing ? StateCheck.REASON : "exports-reapplied", gate::isOpen)
                .onClose(gauges::close);
        config.tls().ifPresentOrElse(files -> builder.tls(mutualTls(files)), () -> LOG.warning(
                "*** the agent API is served WITHOUT TLS: any host that reaches port " + config.listenPort()
                        + " can create, export and delete volumes. Configure agent.tls (cert, key, ca) for mTLS. ***"));
        WorkloadServer server = builder.start();
        try {
            return afterListening(server, backends, state, metrics, operations, gauges, gate);
        } catch (RuntimeException e) {
            server.close();
            throw e;
        }
    }

    /** Start-up's part once the server listens: re-apply, reap, start the gauges, open the gate. */
    private static WorkloadServer afterListening(WorkloadServer server, Map<String, VolumeBackend> backends,
                                                 StateCheck.Verdict state, WorkloadMetrics metrics, AgentOperations operations,
                                                 StoreGauges gauges, AdmissionGate gate) {
        if (state instanceof StateCheck.Verdict.Missing missing) {
            startGauges(gauges, metrics);
            Thread.ofVirtual().name("agent-state-missing").start(() -> repeatError(server, missing.message()));
            return server;
        }
        operations.reapplyExports();
        // zvols and datasets hidden by a delete whose dependents went while the agent was down
        backends.values().forEach(b -> {
            switch (b) {
                case pillar.agent.backend.zfs.ZfsVolumeBackend zvols -> zvols.reapHidden();
                case pillar.agent.backend.zfs.ZfsDatasetBackend datasets -> datasets.reapHidden();
                default -> { }
            }
        });
        // after the re-apply, whose lookups (lvs, zfs list) the stores' first refresh would only slow down
        startGauges(gauges, metrics);
        gate.open();
        return server;
    }

    /** Starts refreshing the stores' gauges in the background, unless the metrics are never served. */
    private static void startGauges(StoreGauges gauges, WorkloadMetrics metrics) {
        if (metrics.enabled()) {
            gauges.start();
        }
    }

    /** Logs the condition as an error now and every minute while the server runs. */
    private static void repeatError(WorkloadServer server, String message) {
        try {
            while (server.isRunning()) {
                LOG.severe(message);
                Thread.sleep(Duration.ofMinutes(1));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * mTLS admitting only clients named in {@code agent.tls.client-names}; renewed files are read at
     * the next handshake. Bad files at start, or a certificate that carries a client name (this agent
     * could then call other agents as the controller), throw IllegalArgumentException.
     */
    private static Tls mutualTls(AgentConfig.TlsFiles files) {
        PeerNames controller = new PeerNames(Set.copyOf(files.clientNames()), "agent.tls.client-names");
        return MutualTls.server(new CertificateFiles(files.cert(), files.key(), files.ca(), "agent.tls", controller),
                controller.names(), controller.setting());
    }
}
