package pillar.node.service;

import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;

import pillar.api.value.Nqn;

/**
 * Serializes the connect and disconnect decisions for one NVMe subsystem across volumes: "connect or
 * reuse" on stage and "disconnect unless another record uses it" on unstage must not interleave, or
 * one volume's unstage could delete the controller another volume's stage has just reused. Striped
 * (a fixed set of locks), so it never grows; the critical sections are short.
 */
final class SubsystemLocks {
    private static final int STRIPES = 64;
    private final ReentrantLock[] locks = new ReentrantLock[STRIPES];

    SubsystemLocks() {
        for (int i = 0; i < STRIPES; i++) {
            locks[i] = new ReentrantLock();
        }
    }

    <T> T with(Nqn subsystem, Supplier<T> action) {
        ReentrantLock lock = locks[Math.floorMod(subsystem.value().hashCode(), STRIPES)];
        lock.lock();
        try {
            return action.get();
        } finally {
            lock.unlock();
        }
    }
}
