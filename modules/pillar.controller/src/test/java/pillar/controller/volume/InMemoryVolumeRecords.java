package pillar.controller.volume;

import java.time.Clock;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;
import java.util.UUID;
import java.util.function.Consumer;

import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import pillar.controller.crd.PillarVolumeState;

/**
 * {@link VolumeRecords} in memory, with the Kubernetes API's semantics the contract states
 * ({@link VolumeRecordsContract} holds it to them, as it does the fabric8 adapter): compare-and-swap
 * on a resourceVersion counter, status writes that keep spec and metadata, spec writes that keep the
 * status (and bump the generation when the spec changed), deletion that waits for finalizers. Every
 * answer is a copy: a caller's change to one never reaches the store. Thread-safe.
 *
 * <p>Faults for crash tests: {@link #beforeWrite} runs before each write (create, replaceStatus,
 * replace, delete) and may throw to make that write fail without effect, as a lost API server would.
 */
public final class InMemoryVolumeRecords implements VolumeRecords {
    private static final KubernetesSerialization JSON = new KubernetesSerialization();

    /** The kinds of write, for {@link #beforeWrite}. */
    public enum Write { CREATE, STATUS, REPLACE, DELETE }

    private final Map<String, PillarVolumeState> stored = new TreeMap<>();
    private final Clock clock;
    private long version;
    private volatile Consumer<Write> beforeWrite = w -> { };
    private int writes;

    public InMemoryVolumeRecords(Clock clock) {
        this.clock = clock;
    }

    public InMemoryVolumeRecords() {
        this(Clock.systemUTC());
    }

    /** Runs before every write, outside the store's lock; what it throws fails the write. */
    public void beforeWrite(Consumer<Write> hook) {
        this.beforeWrite = hook;
    }

    /** How many writes succeeded so far. */
    public synchronized int writes() {
        return writes;
    }

    @Override
    public synchronized Optional<PillarVolumeState> get(String name) {
        return Optional.ofNullable(stored.get(name)).map(InMemoryVolumeRecords::copy);
    }

    @Override
    public synchronized List<PillarVolumeState> list() {
        return stored.values().stream().map(InMemoryVolumeRecords::copy).toList();
    }

    @Override
    public PillarVolumeState create(PillarVolumeState state) {
        beforeWrite.accept(Write.CREATE);
        synchronized (this) {
            String name = state.getMetadata().getName();
            if (stored.containsKey(name)) {
                throw new Conflict("PillarVolumeState " + name + " already exists", null);
            }
            PillarVolumeState next = copy(state);
            next.getMetadata().setUid(UUID.randomUUID().toString());
            next.getMetadata().setGeneration(1L);
            next.getMetadata().setCreationTimestamp(OffsetDateTime.now(clock).withNano(0).withOffsetSameInstant(ZoneOffset.UTC)
                    .format(DateTimeFormatter.ISO_OFFSET_DATE_TIME));
            next.getMetadata().setDeletionTimestamp(null);
            return store(next);
        }
    }

    @Override
    public PillarVolumeState replaceStatus(PillarVolumeState next) {
        beforeWrite.accept(Write.STATUS);
        synchronized (this) {
            PillarVolumeState now = current(next);
            now.setStatus(copy(next).getStatus());
            return store(now);
        }
    }

    @Override
    public Optional<PillarVolumeState> replace(PillarVolumeState next) {
        beforeWrite.accept(Write.REPLACE);
        synchronized (this) {
            PillarVolumeState now = current(next);
            PillarVolumeState written = copy(next);
            written.setStatus(now.getStatus());
            written.getMetadata().setUid(now.getMetadata().getUid());
            written.getMetadata().setCreationTimestamp(now.getMetadata().getCreationTimestamp());
            written.getMetadata().setDeletionTimestamp(now.getMetadata().getDeletionTimestamp());
            long generation = Objects.requireNonNullElse(now.getMetadata().getGeneration(), 1L);
            boolean specChanged = !JSON.asJson(now.getSpec()).equals(JSON.asJson(written.getSpec()));
            written.getMetadata().setGeneration(specChanged ? generation + 1 : generation);
            if (written.getMetadata().getDeletionTimestamp() != null && written.getMetadata().getFinalizers().isEmpty()) {
                stored.remove(written.getMetadata().getName());
                writes++;
                return Optional.empty(); // its deletion waited only for the finalizers (the mock answers without it too)
            }
            return Optional.of(store(written));
        }
    }

    @Override
    public void delete(String name, String resourceVersion) {
        beforeWrite.accept(Write.DELETE);
        synchronized (this) {
            PillarVolumeState now = stored.get(name);
            if (now == null) {
                return;
            }
            if (resourceVersion != null && !resourceVersion.equals(now.getMetadata().getResourceVersion())) {
                throw conflict(name);
            }
            if (now.getMetadata().getFinalizers().isEmpty()) {
                stored.remove(name);
                writes++;
                return;
            }
            if (now.getMetadata().getDeletionTimestamp() == null) {
                PillarVolumeState marked = copy(now);
                marked.getMetadata().setDeletionTimestamp(OffsetDateTime.now(clock).withOffsetSameInstant(ZoneOffset.UTC)
                        .format(DateTimeFormatter.ISO_OFFSET_DATE_TIME));
                store(marked);
            }
        }
    }

    /** The stored record of {@code next}'s name, checked against {@code next}'s resourceVersion; a copy to change. */
    private PillarVolumeState current(PillarVolumeState next) {
        String name = next.getMetadata().getName();
        PillarVolumeState now = stored.get(name);
        if (now == null) {
            throw new NoSuchElementException("PillarVolumeState " + name + " does not exist");
        }
        String sent = next.getMetadata().getResourceVersion();
        if (sent != null && !sent.equals(now.getMetadata().getResourceVersion())) {
            throw conflict(name);
        }
        return copy(now);
    }

    private PillarVolumeState store(PillarVolumeState next) {
        next.getMetadata().setResourceVersion(Long.toString(++version));
        stored.put(next.getMetadata().getName(), next);
        writes++;
        return copy(next);
    }

    private static Conflict conflict(String name) {
        return new Conflict("PillarVolumeState " + name + ": the object has been modified", null);
    }

    private static <T> T copy(T value) {
        return JSON.clone(value);
    }

    /** Every record's name, for assertions. */
    public synchronized List<String> names() {
        return new ArrayList<>(stored.keySet());
    }
}
