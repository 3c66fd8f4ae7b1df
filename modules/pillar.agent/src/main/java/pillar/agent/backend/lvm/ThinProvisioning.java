package pillar.agent.backend.lvm;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;
import java.util.stream.Collectors;

import pillar.agent.backend.BackendException.Kind;
import pillar.agent.backend.BackendException;
import pillar.agent.backend.lvm.LvmReport.ThinPool;
import pillar.api.value.ByteSize;
import pillar.runtime.exec.CallBudget;

/**
 * The over-provisioning limit of one thin pool: the virtual sizes ({@code lv_size}) of every thin LV in
 * the pool, whoever made it and snapshots included, may add up to at most the ratio times the pool's data
 * size. A snapshot counts in full: once its origin is rewritten it holds as many blocks of its own as its
 * size, as LVM's own "Sum of all thin volume sizes exceeds the size of thin pool" warning counts it.
 *
 * <p>Whatever adds a thin LV or grows one checks and acts within {@link #admitting}: one lock per thin pool
 * for the whole agent (two backends naming one pool share it), so that two concurrent creates never both
 * fit into room there is for one. Another process (another installation, an operator's lvcreate) is not
 * held by it; what it made counts from the next check on.
 */
final class ThinProvisioning {
    /** How long a change waits for the pool's admission before it answers BUSY (capped to the call's budget). */
    static final Duration ADMISSION_WAIT = Duration.ofSeconds(60);
    private static final ConcurrentMap<String, ReentrantLock> LOCKS = new ConcurrentHashMap<>();

    private final Lvm lvm;
    private final String pool;
    private final BigDecimal ratio;
    private final ReentrantLock lock;

    /** @param pool the thin pool LV; @param ratio at least 1 (the configuration checked it) */
    ThinProvisioning(Lvm lvm, String pool, BigDecimal ratio) {
        this.lvm = lvm;
        this.pool = pool;
        this.ratio = ratio;
        this.lock = LOCKS.computeIfAbsent(lvm.poolPath(), path -> new ReentrantLock());
    }

    /**
     * What the pool's thin LVs add up to and what the ratio allows.
     *
     * @param pool  the thin pool's report (its size, usage and zeroing)
     * @param names the names of every LV of the volume group (whether a volume exists already)
     */
    record Figures(BigDecimal ratio, ThinPool pool, long provisioned, long limit, Set<String> names) {
        /** The bytes of thin LVs the pool still takes within its limit. */
        long room() {
            return Math.max(0, limit - provisioned);
        }
    }

    /** The pool's figures, from one {@code lvs} of the volume group; UNAVAILABLE when the pool is not in it. */
    Figures figures() {
        LvmReport.ThinLayout layout = lvm.thinLayout();
        ThinPool thinPool = layout.pool().orElseThrow();
        long provisioned = 0;
        for (LvmReport.Sized lv : layout.lvs()) {
            if (lv.pool().equals(pool)) {
                provisioned = saturatedAdd(provisioned, lv.size());
            }
        }
        BigDecimal limit = ratio.multiply(BigDecimal.valueOf(thinPool.size())).setScale(0, RoundingMode.FLOOR);
        long bytes = limit.compareTo(BigDecimal.valueOf(Long.MAX_VALUE)) >= 0 ? Long.MAX_VALUE : limit.longValueExact();
        return new Figures(ratio, thinPool, provisioned, bytes,
                layout.lvs().stream().map(LvmReport.Sized::name).collect(Collectors.toUnmodifiableSet()));
    }

    /**
     * Refuses with NO_SPACE (RESOURCE_EXHAUSTED), naming the figures, when {@code extra} more bytes of thin
     * LVs would take the pool beyond its limit.
     *
     * @param what what the bytes are for, e.g. "volume pvc-1 of 64.0 MiB"
     */
    void check(Figures figures, long extra, String what) {
        if (extra > figures.room()) {
            throw new BackendException(Kind.NO_SPACE, lvm.where() + " cannot take " + what + ": its thin volumes already add up to "
                    + ByteSize.of(figures.provisioned()) + " of the " + ByteSize.of(figures.limit()) + " its over-provisioning ratio "
                    + figures.ratio().stripTrailingZeros().toPlainString() + " allows (" + figures.ratio().stripTrailingZeros()
                    .toPlainString() + " x its data size " + ByteSize.of(figures.pool().size()) + "), " + ByteSize.of(figures.room())
                    + " left; delete volumes or snapshots, grow the pool, or raise over-provisioning-ratio");
        }
    }

    /** Runs {@code change} holding the pool's admission lock; BUSY when another change holds it for too long. */
    <T> T admitting(Supplier<T> change) {
        boolean held;
        try {
            held = lock.tryLock(CallBudget.cap(ADMISSION_WAIT).toNanos(), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new BackendException(Kind.BUSY, "interrupted while waiting to change " + lvm.where() + "; retry", e);
        }
        if (!held) {
            throw new BackendException(Kind.BUSY, "another volume is being created or grown in " + lvm.where()
                    + " and holds its over-provisioning check; retry");
        }
        try {
            return change.get();
        } finally {
            lock.unlock();
        }
    }

    private static long saturatedAdd(long a, long b) {
        long sum = a + b;
        return ((a ^ sum) & (b ^ sum)) < 0 ? Long.MAX_VALUE : sum;
    }
}
