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
import pillar.runtime.exec.CallBudget;

/**
 * The long work of one backend, each job in the background: a linear clone's block copy, a linear LV's zeroing
 * before its removal, an independent ZFS copy. At most one job per volume and {@value #PARALLEL} at a time (more
 * wait in line). The call that starts a job, and its retries, wait for it a while within their budget
 * ({@link #answer}), then answer BUSY with its {@link Job#describe progress}. Each step of a job is bounded and it
 * checkpoints durably, so a restart resumes it. While a copy reading a source is registered ({@link #readingFrom})
 * the backend refuses to delete or resize the source; a failed job stays until a call reports it. {@link #cancel}
 * and {@link #close} stop jobs at their next step, waiting at most {@link #STOP_WAIT}. The registry is in memory only.
 */
public final class BackgroundJobs implements AutoCloseable {
    /**
     * How long a clone's CreateVolume, or a linear volume's DeleteVolume, waits for its background job
     * before it answers BUSY with the progress (capped to the call's budget): a small volume's job is
     * whole within the call that started it.
     */
    public static final Duration CALL_WAIT = Duration.ofSeconds(15);
    /** Jobs running at once per backend. */
    public static final int PARALLEL = 2;
    /** How long a cancel or the shutdown waits for a job to stop (a step and a last checkpoint). */
    public static final Duration STOP_WAIT = Duration.ofSeconds(30);
    private static final Logger LOG = Logger.getLogger(BackgroundJobs.class.getName());

    /** The body of a job: runs in a job thread, reports progress to and asks {@code job}. */
    @FunctionalInterface
    public interface Body {
        /** @return whether the work is whole (false: it was stopped, at a checkpoint) */
        boolean run(Job job);
    }

    private final Map<VolumeId, Job> jobs = new ConcurrentHashMap<>();
    private final ExecutorService threads;
    private final LongSupplier nanoTime;
    private final AtomicInteger started = new AtomicInteger();
    private final AtomicInteger running = new AtomicInteger();

    /** @param name the backend's name, in the job threads' names */
    public BackgroundJobs(String name, LongSupplier nanoTime) {
        this.nanoTime = nanoTime;
        this.threads = Executors.newFixedThreadPool(PARALLEL, Thread.ofPlatform().daemon().name("job-" + name + "-", 0).factory());
    }

    /** The job on {@code volume}, running, waiting in line, or failed and not reported yet. */
    public Optional<Job> onto(VolumeId volume) {
        return Optional.ofNullable(jobs.get(volume));
    }

    /** A job reading {@code source} that has not ended (a failed one reads nothing any more). */
    public Optional<Job> readingFrom(VolumeId source) {
        return jobs.values().stream().filter(j -> source.equals(j.source) && j.failure == null).findFirst();
    }

    /**
     * Registers and starts the job on {@code volume} over bytes {@code [from, total)}, reading {@code source}
     * (null: none); {@code what} says what it does ("copying A to B"). The caller holds the volume's lock
     * and found no job registered ({@link #onto}).
     */
    public Job start(VolumeId volume, VolumeId source, String what, long from, long total, Body body) {
        Job job = new Job(volume, source, what, from, total);
        if (jobs.putIfAbsent(volume, job) != null) {
            throw new IllegalStateException("a job on " + volume + " is registered already");
        }
        try {
            threads.execute(() -> job.run(body));
        } catch (RejectedExecutionException e) {
            jobs.remove(volume, job);
            throw new BackendException(BackendException.Kind.BUSY, "the agent is stopping: " + what + " is not started; retry");
        }
        started.incrementAndGet();
        return job;
    }

    /**
     * The answer of a call on the job's volume: returns once the work is whole, waiting at most {@code wait},
     * or half of what is left of the call's budget when that is less (the rest is for the steps after, an
     * lvremove); a failure is thrown FAILED once (the job is then forgotten, so the next call resumes it from
     * its checkpoint); otherwise BUSY with the progress.
     */
    public void answer(Job job, Duration wait) {
        Duration capped = CallBudget.cap(wait);
        if (job.await(capped.compareTo(wait) < 0 ? capped.dividedBy(2) : wait) && job.whole()) {
            return;
        }
        Optional<RuntimeException> failed = job.failure();
        if (failed.isPresent()) {
            jobs.remove(job.volume, job);
            throw new BackendException(BackendException.Kind.FAILED, failed.get().getMessage() + "; the next call resumes "
                    + job.what + " at " + ByteSize.of(job.checkpointed()), failed.get());
        }
        throw new BackendException(BackendException.Kind.BUSY, job.describe() + "; retry");
    }

    /**
     * Stops the job on {@code volume}, if any, and waits for it to end; true when none is left
     * running (false: it did not stop within {@link #STOP_WAIT}).
     */
    public boolean cancel(VolumeId volume) {
        Job job = jobs.get(volume);
        if (job == null) {
            return true;
        }
        job.stop = true;
        boolean ended = job.await(STOP_WAIT);
        if (ended) {
            jobs.remove(volume, job);
        }
        return ended;
    }

    /** How many jobs were started since this registry was made (a retry never starts a second one). */
    public int started() {
        return started.get();
    }

    /** Stops every job at its next step (each checkpointed) and waits for them, at most {@link #STOP_WAIT} in all. */
    @Override
    public void close() {
        jobs.values().forEach(j -> j.stop = true);
        threads.shutdown();
        try {
            if (!threads.awaitTermination(STOP_WAIT.toMillis(), TimeUnit.MILLISECONDS)) {
                LOG.warning(() -> "jobs still running after " + STOP_WAIT.toSeconds() + " s at shutdown: " + jobs.keySet()
                        + " (each resumes from its last checkpoint)");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** One job: what it does and how far it is. Its fields are written by its thread and read by calls. */
    public final class Job {
        public final VolumeId volume;
        /** The volume it reads, null when none. */
        public final VolumeId source;
        public final String what;
        public final long from;
        public final long total;
        private final CountDownLatch ended = new CountDownLatch(1);
        private volatile boolean stop;
        private volatile boolean running;
        private volatile boolean whole;
        private volatile long done;
        private volatile long checkpoint;
        private volatile long startNanos;
        private volatile RuntimeException failure;

        private Job(VolumeId volume, VolumeId source, String what, long from, long total) {
            this.volume = volume;
            this.source = source;
            this.what = what;
            this.from = from;
            this.total = total;
            this.done = from;
            this.checkpoint = from;
        }

        private void run(Body body) {
            startNanos = nanoTime.getAsLong();
            BackgroundJobs.this.running.incrementAndGet();
            running = true;
            try {
                whole = !stop && body.run(this);
                jobs.remove(volume, this);
            } catch (RuntimeException e) {
                failure = e;
                LOG.log(Level.WARNING, what + " failed at " + ByteSize.of(done) + "; the next call on " + volume
                        + " reports it, the one after resumes at " + ByteSize.of(checkpoint), e);
            } finally {
                BackgroundJobs.this.running.decrementAndGet();
                running = false;
                ended.countDown();
            }
        }

        /** Waits at most {@code wait} for the job to end; true when it did. */
        public boolean await(Duration wait) {
            try {
                return ended.await(wait.toNanos(), TimeUnit.NANOSECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }

        /** Whether it ended with the work whole (and recorded so). */
        public boolean whole() {
            return whole;
        }

        public boolean ended() {
            return ended.getCount() == 0;
        }

        /** Why it failed; empty while it runs or when it ended otherwise. */
        public Optional<RuntimeException> failure() {
            return Optional.ofNullable(failure);
        }

        /** The offset of its last durable checkpoint. */
        public long checkpointed() {
            return checkpoint;
        }

        /** Its state in words, for the answer to a call while it runs. */
        public String describe() {
            long at = done;
            if (ended() && !whole && failure == null) {
                return what + " was stopped at " + ByteSize.of(checkpoint) + " (the agent is stopping, or the volume is being deleted)";
            }
            if (!running && !ended() && BackgroundJobs.this.running.get() >= PARALLEL) {
                return what + " is waiting for one of the " + PARALLEL + " jobs running on this backend to finish"
                        + (from > 0 ? " (it resumes at " + ByteSize.of(from) + ")" : "");
            }
            return String.format(Locale.ROOT, "%s in the background: %s of %s (%d%%) at %.1f MiB/s%s", what, ByteSize.of(at),
                    ByteSize.of(total), total == 0 ? 100 : at * 100 / total, BlockCopy.rate(from, at, startNanos, nanoTime.getAsLong()),
                    from > 0 ? ", resumed at " + ByteSize.of(from) : "");
        }

        /** Whether it is asked to stop (a cancel or the shutdown). */
        public boolean stopping() {
            return stop;
        }

        /** Records how far the body got. */
        public void reached(long at) {
            done = at;
        }

        /** Records that the body made {@code [0, at)} durable and checkpointed it. */
        public void checkpointed(long at) {
            checkpoint = at;
        }
    }
}
