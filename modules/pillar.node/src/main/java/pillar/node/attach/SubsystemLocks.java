package pillar.node.attach;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;

import pillar.api.value.Nqn;

/**
 * Serializes the connect and disconnect decisions for one NVMe subsystem across volumes: "connect or
 * reuse" on stage and "disconnect unless another record uses it" on unstage must not interleave, or
 * one volume's unstage could delete the controller another volume's stage has just reused.
 *
 * <p>One lock per subsystem, never shared with another: the holder may be waiting on the kernel (a
 * connect, up to the kernel deadline), and that must hold up only the volumes of that subsystem. An
 * entry exists only while a call holds or waits for it, so the map never grows with the volumes seen.
 */
public final class SubsystemLocks {
    private final ConcurrentMap<Nqn, Entry> locks = new ConcurrentHashMap<>();

    public <T> T with(Nqn subsystem, Supplier<T> action) {
        Entry entry = locks.compute(subsystem, (k, e) -> {
            Entry held = e == null ? new Entry() : e;
            held.users++;
            return held;
        });
        entry.lock.lock();
        try {
            return action.get();
        } finally {
            entry.lock.unlock();
            locks.compute(subsystem, (k, e) -> --e.users == 0 ? null : e);
        }
    }

    /** How many subsystems have a lock now (for tests). */
    int size() {
        return locks.size();
    }

    /** Guarded by the map's compute for {@code users}. */
    private static final class Entry {
        private final ReentrantLock lock = new ReentrantLock();
        private int users;
    }
}
