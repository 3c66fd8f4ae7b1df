package pillar.agent.backend;

import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongSupplier;
import java.util.logging.Level;
import java.util.logging.Logger;

import pillar.api.value.ByteSize;
import pillar.api.value.VolumeId;

/**
 * The block copies of a linear {@link LvmVolumeBackend}'s clones, each running in the background, at most
 * one per target volume and at most {@value #PARALLEL} at a time (more wait in line: copies in parallel
 * share one volume group's disks, so each would only go slower). The CreateVolume that starts a copy, and
 * its retries, answer with the copy's {@link Copy#describe progress} while it runs; the retry after it
 * finished finds the finished LV.
 *
 * <p>What a copy holds, in the place of the source's lock that a copy within the call held: while a copy
 * of a source is registered here ({@link #readingFrom}), the backend refuses to delete or resize the source.
 * A copy leaves the registry when it finished, was cancelled or stopped; a failed one stays until the
 * next CreateVolume of its target reports the failure ({@link #forget}), which lets the retry after
 * that resume it.
 *
 * <p>{@link #cancel} (a delete of the target) and {@link #close} (the agent's shutdown) stop copies at
 * their next chunk, each after an fsync and a last checkpoint, and wait for them at most {@link #STOP_WAIT}.
 * Only the process's memory holds this registry: after a restart the next CreateVolume of an unfinished
 * clone starts its copy again, from its durable checkpoint.
 */
final class LinearCopies implements AutoCloseable {
    /** Copies running at once per backend. */
    static final int PARALLEL = 2;
    /** How long a cancel or the shutdown waits for a copy to stop (a chunk, an fsync and an lvchange). */
    static final Duration STOP_WAIT = Duration.ofSeconds(30);
    private static final Logger LOG = Logger.getLogger(LinearCopies.class.getName());

    /** The body of a copy: runs in a copy thread, reports progress to and asks {@code copy}. */
    @FunctionalInterface
    interface Body {
        /** @return whether the copy is whole (false: it was stopped, at a checkpoint) */
        boolean run(Copy copy);
    }

    private final Map<VolumeId, Copy> copies = new ConcurrentHashMap<>();
    private final ExecutorService threads;
    private final LongSupplier nanoTime;
    private final AtomicInteger started = new AtomicInteger();
    private final AtomicInteger running = new AtomicInteger();

    /** @param name the backend's name, in the copy threads' names */
    LinearCopies(String name, LongSupplier nanoTime) {
        this.nanoTime = nanoTime;
        this.threads = Executors.newFixedThreadPool(PARALLEL, Thread.ofPlatform().daemon().name("copy-" + name + "-", 0).factory());
    }

    /** The copy onto {@code target}, running, waiting in line, or failed and not reported yet. */
    Optional<Copy> onto(VolumeId target) {
        return Optional.ofNullable(copies.get(target));
    }

    /** A copy reading {@code source} that has not ended (a failed one reads nothing any more). */
    Optional<Copy> readingFrom(VolumeId source) {
        return copies.values().stream().filter(c -> c.source.equals(source) && c.failure == null).findFirst();
    }

    /**
     * Registers and starts the copy onto {@code target} of bytes {@code [from, total)}; the caller holds the
     * target's lock and found none registered ({@link #onto}).
     */
    Copy start(VolumeId target, VolumeId source, String what, long from, long total, Body body) {
        Copy copy = new Copy(target, source, what, from, total);
        if (copies.putIfAbsent(target, copy) != null) {
            throw new IllegalStateException("a copy onto " + target + " is registered already");
        }
        try {
            threads.execute(() -> copy.run(body));
        } catch (RejectedExecutionException e) {
            copies.remove(target, copy);
            throw new BackendException(BackendException.Kind.BUSY, "the agent is stopping: copying " + what + " is not started; retry");
        }
        started.incrementAndGet();
        return copy;
    }

    /** Removes a failed copy once its failure was reported. */
    void forget(Copy copy) {
        copies.remove(copy.target, copy);
    }

    /**
     * Stops the copy onto {@code target}, if any, and waits for it to end; true when none is left
     * running (false: it did not stop within {@link #STOP_WAIT}).
     */
    boolean cancel(VolumeId target) {
        Copy copy = copies.get(target);
        if (copy == null) {
            return true;
        }
        copy.stop = true;
        boolean ended = copy.await(STOP_WAIT);
        if (ended) {
            copies.remove(target, copy);
        }
        return ended;
    }

    /** How many copies were started since this registry was made (a retry never starts a second one). */
    int started() {
        return started.get();
    }

    /** Stops every copy at its next chunk (each checkpointed) and waits for them, at most {@link #STOP_WAIT} in all. */
    @Override
    public void close() {
        copies.values().forEach(c -> c.stop = true);
        threads.shutdown();
        try {
            if (!threads.awaitTermination(STOP_WAIT.toMillis(), TimeUnit.MILLISECONDS)) {
                LOG.warning(() -> "copies still running after " + STOP_WAIT.toSeconds() + " s at shutdown: " + copies.keySet()
                        + " (each resumes from its last checkpoint)");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** One copy: what it copies and how far it is. Its fields are written by its thread and read by calls. */
    final class Copy {
        final VolumeId target;
        final VolumeId source;
        final String what;
        final long from;
        final long total;
        private final CountDownLatch ended = new CountDownLatch(1);
        private volatile boolean stop;
        private volatile boolean running;
        private volatile boolean whole;
        private volatile long done;
        private volatile long checkpoint;
        private volatile long startNanos;
        private volatile RuntimeException failure;

        private Copy(VolumeId target, VolumeId source, String what, long from, long total) {
            this.target = target;
            this.source = source;
            this.what = what;
            this.from = from;
            this.total = total;
            this.done = from;
            this.checkpoint = from;
        }

        private void run(Body body) {
            startNanos = nanoTime.getAsLong();
            LinearCopies.this.running.incrementAndGet();
            running = true;
            try {
                whole = !stop && body.run(this);
                copies.remove(target, this);
            } catch (RuntimeException e) {
                failure = e;
                LOG.log(Level.WARNING, "copying " + what + " failed at " + ByteSize.of(done) + "; the next CreateVolume of " + target
                        + " reports it, the one after resumes at " + ByteSize.of(checkpoint), e);
            } finally {
                LinearCopies.this.running.decrementAndGet();
                running = false;
                ended.countDown();
            }
        }

        /** Waits at most {@code wait} for the copy to end; true when it did. */
        boolean await(Duration wait) {
            try {
                return ended.await(wait.toNanos(), TimeUnit.NANOSECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }

        /** Whether it ended with the target whole and tagged finished. */
        boolean whole() {
            return whole;
        }

        boolean ended() {
            return ended.getCount() == 0;
        }

        /** Why it failed; empty while it runs or when it ended otherwise. */
        Optional<RuntimeException> failure() {
            return Optional.ofNullable(failure);
        }

        /** The offset of its last durable checkpoint. */
        long checkpointed() {
            return checkpoint;
        }

        /** Its state in words, for the answer to a CreateVolume while it runs. */
        String describe() {
            long at = done;
            if (ended() && !whole && failure == null) {
                return "copying " + what + " was stopped at " + ByteSize.of(checkpoint) + " (the agent is stopping, or the clone is"
                        + " being deleted)";
            }
            if (!running && !ended() && LinearCopies.this.running.get() >= PARALLEL) {
                return "copying " + what + " is waiting for one of the " + PARALLEL + " copies running on this backend to finish"
                        + (from > 0 ? " (it resumes at " + ByteSize.of(from) + ")" : "");
            }
            return String.format(Locale.ROOT, "copying %s in the background: %s of %s (%d%%) at %.1f MiB/s%s", what, ByteSize.of(at),
                    ByteSize.of(total), total == 0 ? 100 : at * 100 / total, BlockCopy.rate(from, at, startNanos, nanoTime.getAsLong()),
                    from > 0 ? ", resumed at " + ByteSize.of(from) : "");
        }

        /** Whether it is asked to stop (a cancel or the shutdown). */
        boolean stopping() {
            return stop;
        }

        /** Records how far the body copied. */
        void reached(long at) {
            done = at;
        }

        /** Records that the body made {@code [0, at)} durable and checkpointed it. */
        void checkpointed(long at) {
            checkpoint = at;
        }
    }
}
