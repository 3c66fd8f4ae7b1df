package pillar.agent.fencing;

import java.time.Duration;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;

import pillar.agent.backend.BackendException;
import pillar.api.value.VolumeId;
import pillar.runtime.exec.CallBudget;

/**
 * One lock per volume that a call waits for (fairly): the agent's calls on one volume run one at a
 * time, calls on different volumes in parallel. Unlike the CSI services' try-lock
 * ({@link pillar.runtime.server.VolumeLocks}, which answers ABORTED), a call here queues: the
 * controller already holds the volume on its side, so a second call is a retry that must see the
 * first one's outcome. The wait is part of the call's {@link CallBudget} (outside one, at most
 * {@link #UNBUDGETED}): a call that cannot have the volume within it fails BUSY (ABORTED, the CO
 * retries) without running, so a call never waits out its budget and then acts on a full one.
 * Locks are never removed (one small object per volume ever seen by this process).
 */
public final class WaitingVolumeLocks {
    private final ConcurrentHashMap<VolumeId, ReentrantLock> locks = new ConcurrentHashMap<>();

    /** The longest wait for a volume outside any call's budget (start-up, background work). */
    public static final Duration UNBUDGETED = Duration.ofMinutes(5);

    public <T> T withLock(VolumeId volume, Supplier<T> action) {
        ReentrantLock lock = locks.computeIfAbsent(volume, v -> new ReentrantLock(true));
        Duration wait = CallBudget.cap(UNBUDGETED);
        boolean held;
        try {
            held = lock.tryLock(wait.toNanos(), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new BackendException(BackendException.Kind.BUSY, "volume " + volume + ": interrupted while waiting for"
                    + " another call on it");
        }
        if (!held) {
            throw new BackendException(BackendException.Kind.BUSY, "volume " + volume + ": another call on it is still"
                    + " running after " + wait.toMillis() + " ms of this call's time: retry");
        }
        try {
            return action.get();
        } finally {
            lock.unlock();
        }
    }
}
