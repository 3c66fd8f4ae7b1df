package pillar.controller.reconcile;

import java.time.Clock;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.logging.Level;
import java.util.logging.Logger;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.storage.StorageClass;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import pillar.controller.agent.AgentClient;
import pillar.controller.crd.PillarAgent;
import pillar.controller.crd.PillarProtocol;
import pillar.controller.crd.PillarStorageClass;
import pillar.controller.crd.PillarStore;
import pillar.controller.crd.PillarVolumeState;
import pillar.controller.reconcile.loop.ConditionRecorder;
import pillar.controller.reconcile.loop.EventRecorder;
import pillar.controller.reconcile.loop.ReconcileLoop;
import pillar.controller.reconcile.loop.ReconcileMeters;
import pillar.controller.reconcile.loop.StatusWriter;

/**
 * The four reconcile loops of the Pillar resources, and the watches between them: a PillarAgent's
 * change brings its stores back, a PillarStore's or PillarProtocol's change the storage classes
 * naming them, a generated StorageClass's change (or deletion) its PillarStorageClass.
 *
 * <p>Reconciling starts once every informer has synced, so that no reconciler mistakes a cache
 * still filling for a missing object; {@link #ready()} turns true then.
 */
public final class PillarControllers implements AutoCloseable {
    private static final Logger LOG = Logger.getLogger(PillarControllers.class.getName());

    private final ScheduledExecutorService scheduler;
    private final ReconcileLoop<PillarAgent> agents;
    private final ReconcileLoop<PillarStore> stores;
    private final ReconcileLoop<PillarProtocol> protocols;
    private final ReconcileLoop<PillarStorageClass> storageClasses;
    private final SharedIndexInformer<StorageClass> generated;
    private final AtomicBoolean open = new AtomicBoolean();
    private final ReconcileMeters meters;

    private PillarControllers(KubernetesClient client, AgentClient agentClient, boolean agentTls, String namespace,
                              ReconcileSettings settings, Clock clock, ExportAudit audit, ReconcileMeters meters) {
        AtomicInteger threads = new AtomicInteger();
        ScheduledThreadPoolExecutor pool = new ScheduledThreadPoolExecutor(4, r -> {
            Thread thread = Executors.defaultThreadFactory().newThread(r);
            thread.setName("pillar-reconcile-" + threads.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        });
        pool.setRemoveOnCancelPolicy(true);
        this.scheduler = pool;
        this.meters = meters;
        long resync = settings.resync().toMillis();
        StatusWriter status = new StatusWriter(client);
        EventRecorder events = new EventRecorder(client, namespace);
        ConditionRecorder conditions = new ConditionRecorder(events, clock);
        AgentTargets targets = new AgentTargets(client, agentTls);

        agents = new ReconcileLoop<>("PillarAgent", client.resources(PillarAgent.class).runnableInformer(resync),
                new PillarAgentReconciler(targets, agentClient, status, conditions, settings, meters), PillarAgent::getSpec,
                settings.backoff(), scheduler, meters);
        stores = new ReconcileLoop<>("PillarStore", client.resources(PillarStore.class).runnableInformer(resync),
                new PillarStoreReconciler(agents::get, targets, agentClient, status, conditions, settings,
                        () -> client.resources(PillarVolumeState.class).list().getItems(), audit, meters), PillarStore::getSpec,
                settings.backoff(), scheduler, meters);
        protocols = new ReconcileLoop<>("PillarProtocol", client.resources(PillarProtocol.class).runnableInformer(resync),
                new PillarProtocolReconciler(status, conditions), PillarProtocol::getSpec, settings.backoff(), scheduler,
                meters);
        storageClasses = new ReconcileLoop<>("PillarStorageClass",
                client.resources(PillarStorageClass.class).runnableInformer(resync),
                new PillarStorageClassReconciler(client, stores::get, protocols::get, agents::get, namespace, status,
                        conditions, events),
                PillarStorageClass::getSpec, settings.backoff(), scheduler, meters);
        generated = client.storage().v1().storageClasses()
                .withLabel(DesiredStorageClass.MANAGED_BY, DesiredStorageClass.MANAGED_BY_VALUE).runnableInformer(resync);

        agents.informer().addEventHandler(onAnyChange(agent -> stores.list().stream()
                .filter(s -> s.getSpec() != null && Objects.equals(s.getSpec().getAgent(), agent.getMetadata().getName()))
                .forEach(s -> {
                    stores.enqueue(s.getMetadata().getName());
                    // whether the agent's kernel authenticates hosts decides the classes of its stores
                    storageClasses.list().stream().filter(c -> c.getSpec() != null
                                    && Objects.equals(c.getSpec().getStore(), s.getMetadata().getName()))
                            .forEach(c -> storageClasses.enqueue(c.getMetadata().getName()));
                })));
        stores.informer().addEventHandler(onAnyChange(store -> storageClasses.list().stream()
                .filter(c -> c.getSpec() != null && Objects.equals(c.getSpec().getStore(), store.getMetadata().getName()))
                .forEach(c -> storageClasses.enqueue(c.getMetadata().getName()))));
        protocols.informer().addEventHandler(onAnyChange(protocol -> storageClasses.list().stream()
                .filter(c -> c.getSpec() != null && Objects.equals(c.getSpec().getProtocol(), protocol.getMetadata().getName()))
                .forEach(c -> storageClasses.enqueue(c.getMetadata().getName()))));
        generated.addEventHandler(onAnyChange(sc -> {
            List<OwnerReference> owners = sc.getMetadata().getOwnerReferences();
            if (owners != null) {
                owners.stream().filter(o -> DesiredStorageClass.KIND.equals(o.getKind()))
                        .forEach(o -> storageClasses.enqueue(o.getName()));
            }
        }));
    }

    /**
     * Starts the informers; reconciling begins once all have synced. The caller closes it.
     *
     * @param agentTls  whether the controller has its agents.tls files
     * @param namespace where events about the (cluster-scoped) Pillar objects are recorded
     * @param audit     what each PillarStore poll does with the agent's exports beyond the orphan check
     * @param meters    the workload's, kept across terms
     */
    public static PillarControllers start(KubernetesClient client, AgentClient agentClient, boolean agentTls, String namespace,
                                          ReconcileSettings settings, Clock clock, ExportAudit audit, ReconcileMeters meters) {
        PillarControllers controllers = new PillarControllers(client, agentClient, agentTls, namespace, settings, clock, audit,
                meters);
        controllers.begin();
        return controllers;
    }

    private void begin() {
        CompletableFuture.allOf(
                agents.start().toCompletableFuture(),
                stores.start().toCompletableFuture(),
                protocols.start().toCompletableFuture(),
                storageClasses.start().toCompletableFuture(),
                generated.start().toCompletableFuture())
                .whenComplete((ok, failure) -> {
                    if (failure != null) {
                        LOG.log(Level.SEVERE, "the Pillar informers did not start (are the CRDs installed, and may the"
                                + " controller list and watch them?): " + failure, failure);
                        return;
                    }
                    agents.open();
                    stores.open();
                    protocols.open();
                    storageClasses.open();
                    open.set(true);
                    LOG.info("informers synced: reconciling PillarAgent, PillarStore, PillarProtocol, PillarStorageClass");
                });
    }

    /** True once every informer has synced and reconciling has begun (the readiness check). */
    public boolean ready() {
        return open.get() && agents.hasSynced() && stores.hasSynced() && protocols.hasSynced() && storageClasses.hasSynced()
                && generated.hasSynced();
    }

    @Override
    public void close() {
        agents.close();
        stores.close();
        protocols.close();
        storageClasses.close();
        generated.close();
        scheduler.shutdownNow();
        meters.agentsUnknown();
        meters.orphansUnknown();
    }

    private static <T extends HasMetadata> ResourceEventHandler<T> onAnyChange(Consumer<T> action) {
        return new ResourceEventHandler<>() {
            @Override
            public void onAdd(T obj) {
                action.accept(obj);
            }

            @Override
            public void onUpdate(T old, T now) {
                action.accept(now);
            }

            @Override
            public void onDelete(T obj, boolean finalStateUnknown) {
                action.accept(obj);
            }
        };
    }
}
