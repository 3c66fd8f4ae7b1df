package pillar.controller;

import java.time.Clock;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.logging.Logger;

import io.fabric8.kubernetes.client.KubernetesClient;
import pillar.controller.agent.AgentClient;
import pillar.controller.crd.PillarVolumeState;
import pillar.controller.reconcile.PillarControllers;
import pillar.controller.reconcile.loop.ReconcileLoop;
import pillar.controller.reconcile.loop.ReconcileMeters;
import pillar.controller.volume.VolumeStateReconciler;
import pillar.controller.volume.Volumes;

/**
 * The reconcilers the leading replica runs: the Pillar resources' ({@link PillarControllers}) and the
 * volume states' ({@link VolumeStateReconciler}). Started when this replica starts leading, stopped
 * when it stops; a new term starts them afresh.
 */
final class Reconcilers {
    private static final Logger LOG = Logger.getLogger(Reconcilers.class.getName());

    private final KubernetesClient client;
    private final AgentClient agents;
    private final ControllerConfig config;
    private final String namespace;
    private final Volumes volumes;
    private final ReconcileMeters meters;
    private Running running;

    private record Running(PillarControllers pillars, ReconcileLoop<PillarVolumeState> states,
                           ScheduledThreadPoolExecutor scheduler) {
        boolean ready() {
            return pillars.ready() && states.hasSynced();
        }

        void close() {
            pillars.close();
            states.close();
            scheduler.shutdownNow();
        }
    }

    /**
     * @param volumes the volume state machine, shared with the CSI service
     * @param meters  the workload's, shared by every term's loops
     */
    Reconcilers(KubernetesClient client, AgentClient agents, ControllerConfig config, String namespace, Volumes volumes,
                ReconcileMeters meters) {
        this.client = client;
        this.agents = agents;
        this.config = config;
        this.namespace = namespace;
        this.volumes = volumes;
        this.meters = meters;
    }

    synchronized void start() {
        if (running != null) {
            return;
        }
        PillarControllers pillars = PillarControllers.start(client, agents, config.agentTls().isPresent(), namespace,
                config.reconcile(), Clock.systemUTC(), volumes.grantRevocation(), meters);
        ScheduledThreadPoolExecutor scheduler = new ScheduledThreadPoolExecutor(1, r -> {
            Thread thread = Executors.defaultThreadFactory().newThread(r);
            thread.setName("pillar-volume-states");
            thread.setDaemon(true);
            return thread;
        });
        ReconcileLoop<PillarVolumeState> states = new ReconcileLoop<>("PillarVolumeState",
                client.resources(PillarVolumeState.class).runnableInformer(config.reconcile().resync().toMillis()),
                new VolumeStateReconciler(volumes),
                PillarVolumeState::getSpec, config.reconcile().backoff(), scheduler, meters);
        states.start().whenComplete((ok, failure) -> {
            if (failure == null) {
                states.open();
            } else {
                LOG.severe("the PillarVolumeState informer did not start (is its CRD installed?): " + failure);
            }
        });
        running = new Running(pillars, states, scheduler);
    }

    synchronized void stop() {
        if (running != null) {
            running.close();
            running = null;
        }
    }

    synchronized boolean ready() {
        return running != null && running.ready();
    }
}
