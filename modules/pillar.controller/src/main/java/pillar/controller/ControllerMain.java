package pillar.controller;

import java.security.SecureRandom;
import java.time.Clock;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import java.util.logging.Logger;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.helidon.logging.common.LogConfig;
import pillar.runtime.server.CsiServices;
import pillar.runtime.server.IdentityService;
import pillar.runtime.server.VolumeLocks;
import pillar.runtime.server.LogFormat;
import pillar.runtime.server.LogLevel;
import pillar.runtime.server.WorkloadConfig;
import pillar.runtime.server.WorkloadServer;
import pillar.controller.agent.AgentClient;
import pillar.controller.agent.GrpcAgentClient;
import pillar.controller.auth.PublicationKeys;
import pillar.controller.auth.VolumeStageSecrets;
import pillar.controller.csi.ControllerService;
import pillar.controller.csi.HostNqns;
import pillar.controller.csi.VolumeCatalog;
import pillar.controller.kube.KubeInventory;
import pillar.controller.kube.KubeSnapshotRecords;
import pillar.controller.kube.KubeVolumeRecords;
import pillar.controller.leader.LeaderElection;
import pillar.controller.leader.LeaderElectionSettings;
import pillar.controller.reconcile.AgentTargets;
import pillar.controller.reconcile.loop.EventRecorder;
import pillar.controller.reconcile.loop.ReconcileMeters;
import pillar.controller.snapshot.Snapshots;
import pillar.controller.volume.Leading;
import pillar.controller.volume.Volumes;
import pillar.controller.volume.read.AbnormalVolumes;

/**
 * pillar-controller: runs as a Deployment, reconciles the Pillar CRDs, serves CSI Identity and
 * Controller on the sidecars' socket, and health over HTTP (ready once the informers have synced).
 * Configuration: see {@link ControllerConfig}.
 */
public final class ControllerMain {
    /** Health port (the controller runs in its own network namespace). */
    public static final int DEFAULT_HEALTH_PORT = ControllerConfig.DEFAULT_HEALTH_PORT;
    private static final Logger LOG = Logger.getLogger(ControllerMain.class.getName());

    private ControllerMain() {
    }

    public static void main(String[] args) {
        LogConfig.configureRuntime();
        ControllerConfig config;
        KubernetesClient client;
        GrpcAgentClient agents;
        try {
            io.helidon.config.Config root = WorkloadConfig.load(args);
            LogFormat.from(root).apply();
            LogLevel.from(root).apply();
            config = ControllerConfig.from(root);
            agents = new GrpcAgentClient(config.agentTls(), config.agentSettings());
            client = KubernetesClients.create(config.kubeconfig(), config.context(), config.metrics());
        } catch (IllegalArgumentException e) {
            System.err.println("pillar-controller: refusing to start: " + e.getMessage());
            System.exit(2);
            return;
        }
        if (config.agentTls().isEmpty()) {
            LOG.warning("no agents.tls files: the controller can only reach agents whose tls.mode is none (plaintext)");
        }
        ControllerWorkload workload = start(config, client, agents);
        // on SIGTERM (a rolling update, a drained node) the lease is released, so the next replica
        // leads at once instead of after the lease duration (measured: ~11 s of a restart at 1,000 volumes)
        Runtime.getRuntime().addShutdownHook(new Thread(workload::close, "pillar-controller-shutdown"));
        LOG.info(() -> "pillar-controller started: CSI on unix:" + config.endpoint().socket() + ", health on port "
                + workload.server().healthPort() + ", Kubernetes API " + client.getMasterUrl());
    }

    /**
     * Starts the controller on the given clients; the caller owns the result (and the clients). With
     * leader election (the default) the replica stands for the Lease and, while it leads, runs the
     * reconcilers and serves the CSI calls that change volumes; otherwise it leads alone. Readiness
     * ({@code informers-synced}) is true once the leader's informers have synced, and always for a
     * replica on standby (it must not block a rolling update). Its meters are {@code config.metrics()},
     * served on the health port unless disabled (a configuration read serves one workload: its meters
     * are registered once); the Kubernetes API requests are counted only when the client was made by
     * {@link KubernetesClients}, as {@link #main} makes it.
     */
    public static ControllerWorkload start(ControllerConfig config, KubernetesClient client, AgentClient agents) {
        String namespace = config.namespace().orElseGet(() -> client.getNamespace() == null ? "default" : client.getNamespace());
        VolumeLocks locks = new VolumeLocks();
        LeaderElectionSettings election = config.leaderElection();
        AtomicReference<Leading> leading = new AtomicReference<>(Leading.ALWAYS);
        Leading now = () -> leading.get().now();
        EventRecorder events = new EventRecorder(client, namespace);
        // on every replica, so that a new leader's cache of the nodes' NQNs is already warm
        HostNqns nqns = HostNqns.start(client, events);
        // on every replica too: ListVolumes is a read, served wherever the sidecar calls it
        VolumeCatalog catalog = VolumeCatalog.start(client);
        // the volume state machine, once: the CSI service and the state reconciler share it
        Volumes volumes = new Volumes(new KubeVolumeRecords(client), catalog, new KubeInventory(client, nqns),
                new AgentTargets(client, config.agentTls().isPresent()), agents, locks, now, events,
                new PublicationKeys(client, namespace, new SecureRandom()), VolumeStageSecrets.stage(client, namespace),
                Clock.systemUTC(), config.abandonedCreateGrace());
        ControllerGauges.register(config.metrics(), now, catalog);
        Reconcilers reconcilers = new Reconcilers(client, agents, config, namespace, volumes,
                new ReconcileMeters(config.metrics()));
        Optional<LeaderElection> elected = Optional.empty();
        try {
            elected = election.enabled()
                    ? Optional.of(new LeaderElection(client, namespace, election, reconcilers::start, reconcilers::stop))
                    : Optional.empty();
            elected.ifPresent(leading::set);
            BooleanSupplier ready = () -> !now.now() || reconcilers.ready();
            IdentityService identity = new IdentityService(ready);
            WorkloadServer.Builder builder = config.endpoint().serverBuilder().readiness("informers-synced", ready)
                    .metrics(config.metrics());
            ControllerService service = new ControllerService(volumes, catalog,
                    new Snapshots(new KubeSnapshotRecords(client), volumes), AbnormalVolumes.register(config.metrics()));
            CsiServices.controller(identity, service).forEach(builder::service);
            WorkloadServer server = builder.start();
            if (elected.isPresent()) {
                elected.get().start();
                LOG.info(() -> "standing for leadership of Lease " + namespace + "/" + election.lease() + " as "
                        + election.identity());
            } else {
                LOG.warning("leader election is off: this replica acts alone; never run two of it");
                reconcilers.start();
            }
            return new ControllerWorkload(server, reconcilers, elected, now, nqns, catalog);
        } catch (RuntimeException e) {
            elected.ifPresent(LeaderElection::close);
            reconcilers.stop();
            nqns.close();
            catalog.close();
            throw e;
        }
    }
}
