package pillar.controller.csi;

import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Function;
import java.util.logging.Logger;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import pillar.api.csi.v1.ListVolumesResponse;
import pillar.api.csi.v1.VolumeCondition;
import pillar.runtime.server.CsiException;
import pillar.controller.crd.PillarVolumeState;
import pillar.controller.crd.VolumePhase;
import pillar.controller.volume.state.CsiVolumes;
import pillar.controller.volume.state.Records;
import pillar.controller.volume.state.VolumeStates;

/**
 * The volumes ListVolumes lists, from a watch of the PillarVolumeStates (an informer, on every
 * replica), kept sorted by volume ID so that a page costs the page, not the whole list. Listed are
 * the states whose create completed (phase Exported), with their publications; a state still
 * being created or being deleted is not (the CO has no volume of it, or asked it gone).
 *
 * <p>Read-your-writes: this replica's own writes ({@link VolumeStates.Writes}) are awaited before
 * a page is read, so a volume whose CreateVolume or DeleteVolume answered here is listed, or not,
 * at once. A write the watch never shows as written (a re-list skipped it) is waited for at most
 * {@link #OWN_WRITES}, once. Until the first list has been read, pages answer UNAVAILABLE.
 */
public final class VolumeCatalog implements VolumeStates.Writes, AutoCloseable {
    /** How long a page waits for this replica's own writes to come back through the watch. */
    static final Duration OWN_WRITES = Duration.ofSeconds(2);
    /** How long a page waits for the first list after a start. */
    static final Duration FIRST_LIST = Duration.ofSeconds(10);
    private static final Logger LOG = Logger.getLogger(VolumeCatalog.class.getName());

    /** A write of this replica not yet seen through the watch: its resourceVersion, or null for a delete. */
    private record Pending(String resourceVersion) {
    }

    private final SharedIndexInformer<PillarVolumeState> informer;
    private CompletableFuture<Void> started;
    private final NavigableMap<String, PillarVolumeState> listed = new ConcurrentSkipListMap<>();
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition seen = lock.newCondition();
    /** Guarded by {@link #lock}: every state's resourceVersion as the watch last showed it. */
    private final Map<String, String> versions = new HashMap<>();
    /** Guarded by {@link #lock}. */
    private final Map<String, Pending> pending = new HashMap<>();

    private VolumeCatalog(KubernetesClient client) {
        // no resync: an unchanged state is never announced again
        this.informer = client.resources(PillarVolumeState.class).runnableInformer(0);
        informer.addEventHandler(new ResourceEventHandler<>() {
            @Override
            public void onAdd(PillarVolumeState state) {
                upsert(state);
            }

            @Override
            public void onUpdate(PillarVolumeState old, PillarVolumeState state) {
                upsert(state);
            }

            @Override
            public void onDelete(PillarVolumeState state, boolean finalStateUnknown) {
                remove(state.getMetadata().getName());
            }
        });
    }

    /** Starts watching the PillarVolumeStates; the caller closes it. */
    public static VolumeCatalog start(KubernetesClient client) {
        VolumeCatalog catalog = new VolumeCatalog(client);
        catalog.started = catalog.informer.start().toCompletableFuture();
        catalog.started.whenComplete((ok, failure) -> {
            if (failure != null) {
                LOG.severe("the PillarVolumeState informer of ListVolumes did not start (is its CRD installed?): " + failure);
            }
        });
        return catalog;
    }

    /**
     * Up to {@code max} volumes (0: all) whose IDs sort after {@code after}, in ID order, each with its
     * condition ({@code condition} answers the page's, in its order), and
     * the token of the next page (empty when none follows), as {@link ListTokens} describes.
     *
     * @throws CsiException UNAVAILABLE while the first list has not been read
     */
    ListVolumesResponse page(Optional<String> after, int max, Function<List<PillarVolumeState>, List<VolumeCondition>> condition) {
        awaitFirstList();
        awaitOwnWrites();
        Iterator<Map.Entry<String, PillarVolumeState>> volumes =
                (after.isPresent() ? listed.tailMap(after.get(), false) : listed).entrySet().iterator();
        List<PillarVolumeState> states = new ArrayList<>();
        while (volumes.hasNext() && (max == 0 || states.size() < max)) {
            states.add(volumes.next().getValue());
        }
        ListVolumesResponse.Builder page = ListVolumesResponse.newBuilder();
        List<VolumeCondition> conditions = condition.apply(states);
        for (int i = 0; i < states.size(); i++) {
            ListVolumesResponse.Entry entry = entry(states.get(i));
            page.addEntries(entry.toBuilder().setStatus(entry.getStatus().toBuilder().setVolumeCondition(conditions.get(i))));
        }
        if (!states.isEmpty() && volumes.hasNext()) {
            page.setNextToken(ListTokens.after(states.getLast().getMetadata().getName()));
        }
        return page.build();
    }

    @Override
    public void wrote(PillarVolumeState state) {
        if (state == null) {
            return;
        }
        String name = state.getMetadata().getName();
        String version = state.getMetadata().getResourceVersion();
        lock.lock();
        try {
            if (!version.equals(versions.get(name))) {
                pending.put(name, new Pending(version));
            }
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void deleted(String name) {
        lock.lock();
        try {
            if (versions.containsKey(name)) {
                pending.put(name, new Pending(null));
            }
        } finally {
            lock.unlock();
        }
    }

    private void upsert(PillarVolumeState state) {
        String name = state.getMetadata().getName();
        lock.lock();
        try {
            versions.put(name, state.getMetadata().getResourceVersion());
            if (listable(state)) {
                listed.put(name, state);
            } else {
                listed.remove(name);
            }
            Pending write = pending.get(name);
            if (write != null && state.getMetadata().getResourceVersion().equals(write.resourceVersion())) {
                pending.remove(name);
            }
            seen.signalAll();
        } finally {
            lock.unlock();
        }
    }

    private void remove(String name) {
        lock.lock();
        try {
            versions.remove(name);
            listed.remove(name);
            pending.remove(name);
            seen.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /** Waits until the watch has shown every write this replica made before the call (or gives up on them). */
    private void awaitOwnWrites() {
        lock.lock();
        try {
            Map<String, Pending> before = new HashMap<>(pending);
            long deadline = System.nanoTime() + OWN_WRITES.toNanos();
            while (before.entrySet().stream().anyMatch(w -> pending.get(w.getKey()) == w.getValue())) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    before.forEach(pending::remove);
                    LOG.warning(() -> "ListVolumes: the watch did not show this replica's writes of " + before.keySet()
                            + " within " + OWN_WRITES.toMillis() + " ms; listing what it shows");
                    return;
                }
                seen.awaitNanos(left);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw CsiException.unavailable("interrupted while waiting for the volume list");
        } finally {
            lock.unlock();
        }
    }

    private void awaitFirstList() {
        if (informer.hasSynced()) {
            return;
        }
        try {
            started.get(FIRST_LIST.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Exception e) {
            // answered below
        }
        if (!informer.hasSynced()) {
            throw CsiException.unavailable("the controller has not read the PillarVolumeStates yet (it needs list and watch on"
                    + " pillarvolumestates); retry shortly");
        }
    }

    /** How many PillarVolumeStates the watch shows in each phase; phases of none are left out. */
    public Map<VolumePhase, Long> phases() {
        Map<VolumePhase, Long> counts = new EnumMap<>(VolumePhase.class);
        informer.getStore().list().forEach(state -> counts.merge(Records.phase(state), 1L, Long::sum));
        return counts;
    }

    /** Whether ListVolumes lists the state: its create completed and nobody asked it gone but by hand. */
    static boolean listable(PillarVolumeState state) {
        return Records.phase(state) == VolumePhase.Exported
                && (state.getMetadata().getDeletionTimestamp() == null || Records.deletionHeld(state));
    }

    /** The state's ListVolumes entry: the volume as CreateVolume returned it and the nodes it is published to. */
    static ListVolumesResponse.Entry entry(PillarVolumeState state) {
        return ListVolumesResponse.Entry.newBuilder().setVolume(CsiVolumes.of(state))
                .setStatus(ListVolumesResponse.VolumeStatus.newBuilder().addAllPublishedNodeIds(Records.publishedNodes(state))).build();
    }

    @Override
    public void close() {
        informer.close();
    }
}
