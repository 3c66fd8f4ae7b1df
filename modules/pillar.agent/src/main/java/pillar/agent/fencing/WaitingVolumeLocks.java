package pillar.agent.fencing;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;

import pillar.api.value.VolumeId;

/**
 * One lock per volume that a call waits for (fairly): the agent's calls on one volume run one at a
 * time, calls on different volumes in parallel. Unlike the CSI services' try-lock
 * ({@link pillar.runtime.server.VolumeLocks}, which answers ABORTED), a call here queues: the
 * controller already holds the volume on its side, so a second call is a retry that must see the
 * first one's outcome. Locks are never removed (one small object per volume ever seen by this process).
 */
public final class WaitingVolumeLocks {
    private final ConcurrentHashMap<VolumeId, ReentrantLock> locks = new ConcurrentHashMap<>();

    public <T> T withLock(VolumeId volume, Supplier<T> action) {
        ReentrantLock lock = locks.computeIfAbsent(volume, v -> new ReentrantLock(true));
        lock.lock();
        try {
            return action.get();
        } finally {
            lock.unlock();
        }
    }
}
