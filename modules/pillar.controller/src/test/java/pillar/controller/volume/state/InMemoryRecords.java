package pillar.controller.volume.state;

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

import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;


/**
 * {@link DurableRecords} of one kind in memory, with the Kubernetes API's semantics the contract states
 * ({@link VolumeRecordsContract} holds it to them, as it does the fabric8 adapter): compare-and-swap
 * on a resourceVersion counter, status writes that keep spec and metadata, spec writes that keep the
 * status (and bump the generation when the spec changed), deletion that waits for finalizers. Every
 * answer is a copy: a caller's change to one never reaches the store. Thread-safe.
 *
 * <p>Faults for crash tests: {@link #faults} is told before and after each write (create,
 * replaceStatus, replace, delete) and may throw: before, the write fails without effect (the API
 * server was not reached); after, it took effect but its answer is lost (the process died right then).
 */
public class InMemoryRecords<S, U, T extends CustomResource<S, U>> implements DurableRecords<T> {
    private static final KubernetesSerialization JSON = new KubernetesSerialization();

    /** The kinds of write, for {@link #faults}. */
    public enum Write { CREATE, STATUS, REPLACE, DELETE }

    /** Told of each write attempt, outside the store's lock; what it throws fails the write. */
    public interface Faults {
        Faults NONE = new Faults() {
        };

        /** Before the write: a throw leaves the store as it was. */
        default void before(Write write) {
        }

        /** After the write took effect: a throw loses its answer. */
        default void after(Write write) {
        }
    }

    private final Map<String, T> stored = new TreeMap<>();
    private final Clock clock;
    private long version;
    private volatile Faults faults = Faults.NONE;
    private int writes;

    private final String kind;

    /** @param kind the records' kind, for messages */
    public InMemoryRecords(Clock clock, String kind) {
        this.clock = clock;
        this.kind = kind;
    }

    /** From now on, each write is reported to {@code faults} (see the class comment). */
    public void faults(Faults faults) {
        this.faults = faults;
    }

    /** How many writes succeeded so far. */
    public synchronized int writes() {
        return writes;
    }

    @Override
    public synchronized Optional<T> get(String name) {
        return Optional.ofNullable(stored.get(name)).map(InMemoryRecords::copy);
    }

    @Override
    public synchronized List<T> list() {
        return stored.values().stream().map(InMemoryRecords::copy).toList();
    }

    @Override
    public T create(T state) {
        return write(Write.CREATE, () -> created(state));
    }

    private synchronized T created(T state) {
        String name = state.getMetadata().getName();
        if (stored.containsKey(name)) {
            throw new Conflict(kind + " " + name + " already exists", null);
        }
        T next = copy(state);
        next.getMetadata().setUid(UUID.randomUUID().toString());
        next.getMetadata().setGeneration(1L);
        next.getMetadata().setCreationTimestamp(OffsetDateTime.now(clock).withNano(0).withOffsetSameInstant(ZoneOffset.UTC)
                .format(DateTimeFormatter.ISO_OFFSET_DATE_TIME));
        next.getMetadata().setDeletionTimestamp(null);
        return store(next);
    }

    @Override
    public T replaceStatus(T next) {
        return write(Write.STATUS, () -> statusReplaced(next));
    }

    private synchronized T statusReplaced(T next) {
        T now = current(next);
        now.setStatus(copy(next).getStatus());
        return store(now);
    }

    @Override
    public Optional<T> replace(T next) {
        return write(Write.REPLACE, () -> replaced(next));
    }

    private synchronized Optional<T> replaced(T next) {
        T now = current(next);
        T written = copy(next);
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

    @Override
    public void delete(String name, String resourceVersion) {
        write(Write.DELETE, () -> {
            deleted(name, resourceVersion);
            return null;
        });
    }

    private synchronized void deleted(String name, String resourceVersion) {
        T now = stored.get(name);
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
            T marked = copy(now);
            marked.getMetadata().setDeletionTimestamp(OffsetDateTime.now(clock).withOffsetSameInstant(ZoneOffset.UTC)
                    .format(DateTimeFormatter.ISO_OFFSET_DATE_TIME));
            store(marked);
        }
    }

    private <R> R write(Write write, java.util.function.Supplier<R> change) {
        Faults now = faults;
        now.before(write);
        R result = change.get();
        now.after(write);
        return result;
    }

    /** The stored record of {@code next}'s name, checked against {@code next}'s resourceVersion; a copy to change. */
    private T current(T next) {
        String name = next.getMetadata().getName();
        T now = stored.get(name);
        if (now == null) {
            throw new NoSuchElementException(kind + " " + name + " does not exist");
        }
        String sent = next.getMetadata().getResourceVersion();
        if (sent != null && !sent.equals(now.getMetadata().getResourceVersion())) {
            throw conflict(name);
        }
        return copy(now);
    }

    private T store(T next) {
        next.getMetadata().setResourceVersion(Long.toString(++version));
        stored.put(next.getMetadata().getName(), next);
        writes++;
        return copy(next);
    }

    private Conflict conflict(String name) {
        return new Conflict(kind + " " + name + ": the object has been modified", null);
    }

    private static <V> V copy(V value) {
        return JSON.clone(value);
    }

    /** Every record's name, for assertions. */
    public synchronized List<String> names() {
        return new ArrayList<>(stored.keySet());
    }

    /** Fails the {@code strike}-th record write: before it (no effect) or, when {@code lost}, after it (effect, no answer). */
    public static final class Strike implements Faults {
        private final int strike;
        private final boolean lost;
        private int attempts;

        public Strike(int strike, boolean lost) {
            this.strike = strike;
            this.lost = lost;
        }

        @Override
        public synchronized void before(Write write) {
            if (++attempts == strike && !lost) {
                throw new IllegalStateException("injected: the API server was not reached (" + write + ")");
            }
        }

        @Override
        public synchronized void after(Write write) {
            if (attempts == strike && lost) {
                throw new IllegalStateException("injected: the answer to " + write + " was lost");
            }
        }
    }
}
