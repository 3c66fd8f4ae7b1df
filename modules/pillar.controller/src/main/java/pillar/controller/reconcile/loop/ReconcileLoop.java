package pillar.controller.reconcile.loop;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.Function;
import java.util.function.IntSupplier;
import java.util.logging.Level;
import java.util.logging.Logger;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.fabric8.kubernetes.client.utils.Serialization;

/**
 * One reconciler fed by one informer. An object's name is queued when it is added, deleted, or
 * changed in anything but its status (a status write would otherwise reconcile it again), and on
 * the informer's periodic resync; the reconciler's {@link Result} decides when it comes back. Each
 * reconcile is timed, and the queue's backlog reported, into {@link ReconcileMeters} under the kind.
 *
 * @param <T> the kind of object reconciled
 */
public final class ReconcileLoop<T extends HasMetadata> implements AutoCloseable {
    private static final Logger LOG = Logger.getLogger(ReconcileLoop.class.getName());

    private final String kind;
    private final SharedIndexInformer<T> informer;
    private final Reconciler<T> reconciler;
    private final Function<T, Object> spec;
    private final Backoff backoff;
    private final WorkQueue queue;
    private final ReconcileMeters meters;
    private final IntSupplier backlog;
    private final Map<String, Integer> failures = new ConcurrentHashMap<>();

    /**
     * @param kind       for logs and meters, e.g. PillarAgent
     * @param informer   not yet started
     * @param spec       the part of an object whose change is worth a reconcile (its spec)
     */
    public ReconcileLoop(String kind, SharedIndexInformer<T> informer, Reconciler<T> reconciler, Function<T, Object> spec,
                         Backoff backoff, ScheduledExecutorService scheduler, ReconcileMeters meters) {
        this.kind = kind;
        this.informer = informer;
        this.reconciler = reconciler;
        this.spec = spec;
        this.backoff = backoff;
        this.queue = new WorkQueue(scheduler, this::process);
        this.meters = meters;
        this.backlog = queue::depth;
        meters.queue(kind, backlog);
        informer.addEventHandler(new ResourceEventHandler<T>() {
            @Override
            public void onAdd(T obj) {
                enqueue(obj.getMetadata().getName());
            }

            @Override
            public void onUpdate(T old, T now) {
                if (worthReconciling(old, now)) {
                    enqueue(now.getMetadata().getName());
                }
            }

            @Override
            public void onDelete(T obj, boolean finalStateUnknown) {
                enqueue(obj.getMetadata().getName());
            }
        });
    }

    /** Starts the informer; the stage completes when its cache is synced. */
    public CompletionStage<Void> start() {
        return informer.start();
    }

    /** Starts reconciling (after every informer the reconcilers read has synced). */
    public void open() {
        queue.open();
    }

    public boolean hasSynced() {
        return informer.hasSynced();
    }

    public SharedIndexInformer<T> informer() {
        return informer;
    }

    /** The object of that name as the informer last saw it. */
    public Optional<T> get(String name) {
        return Optional.ofNullable(informer.getStore().getByKey(name));
    }

    public List<T> list() {
        return informer.getStore().list();
    }

    /** Reconcile that name as soon as possible. */
    public void enqueue(String name) {
        queue.add(name, Duration.ZERO);
    }

    @Override
    public void close() {
        meters.unqueue(kind, backlog);
        queue.close();
        informer.close();
    }

    private boolean worthReconciling(T old, T now) {
        if (Objects.equals(old.getMetadata().getResourceVersion(), now.getMetadata().getResourceVersion())) {
            return true; // the informer's periodic resync
        }
        return !Objects.equals(old.getMetadata().getGeneration(), now.getMetadata().getGeneration())
                || !Objects.equals(old.getMetadata().getDeletionTimestamp(), now.getMetadata().getDeletionTimestamp())
                || !Objects.equals(old.getMetadata().getLabels(), now.getMetadata().getLabels())
                || !Objects.equals(old.getMetadata().getAnnotations(), now.getMetadata().getAnnotations())
                || !Serialization.asJson(spec.apply(old)).equals(Serialization.asJson(spec.apply(now)));
    }

    private Optional<Duration> process(String name) {
        Result result;
        long started = System.nanoTime();
        try {
            Optional<T> current = get(name);
            result = current.isPresent() ? reconciler.reconcile(current.get()) : reconciler.deleted(name);
            meters.reconciled(kind, result, started);
        } catch (RuntimeException e) {
            meters.threw(kind, started);
            LOG.log(Level.WARNING, kind + " " + name + ": reconcile failed, retrying with backoff: " + e, e);
            result = Result.retry();
        }
        return switch (result.next()) {
            case DONE -> {
                failures.remove(name);
                yield Optional.empty();
            }
            case REQUEUE -> {
                failures.remove(name);
                yield Optional.of(result.after());
            }
            case RETRY -> {
                int failed = failures.merge(name, 1, Integer::sum);
                Duration delay = backoff.delay(failed);
                LOG.fine(() -> kind + " " + name + ": failure " + failed + ", next attempt in " + delay);
                yield Optional.of(delay);
            }
        };
    }
}
