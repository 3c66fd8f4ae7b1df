package pillar.agent.nfs;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.logging.Logger;

import pillar.runtime.metrics.WorkloadMetrics;

/**
 * Writes to nfsd's procfs files (a client's {@code ctl}, {@code unlock_filesystem}) on worker threads,
 * each waited for at most a deadline: an {@code expire} waits, with no timeout of its own, for the
 * client's compounds in flight, so a stuck backing device hangs it. Past the deadline the caller goes
 * on ({@link #write} answers false) and the write is left to the kernel, counted as stuck
 * ({@link #stuck()}, the gauge {@value #STUCK}) until it returns. At most {@code inFlight} writes run at
 * once; one more is refused at once (false), never queued. The same text to the same file while a
 * write of it is still in flight waits for that write rather than starting another, so a stuck
 * write costs one thread however often it is retried.
 */
public final class NfsdWrites {
    /** What one write may take: an expiry of a healthy client takes milliseconds. */
    public static final Duration DEADLINE = Duration.ofSeconds(10);
    /** Writes in flight at once, stuck ones included. */
    public static final int IN_FLIGHT = 4;
    /** The gauge of the writes whose caller gave up and whose thread is still inside the kernel. */
    static final String STUCK = "pillar_agent_nfsd_stuck_writes";
    private static final Logger LOG = Logger.getLogger(NfsdWrites.class.getName());

    private record Key(Path file, String text) {
    }

    private final Duration deadline;
    private final int inFlight;
    private final ThreadPoolExecutor pool;
    private final Map<Key, Write> running = new HashMap<>();
    private int stuck;

    public NfsdWrites(Duration deadline, int inFlight) {
        this.deadline = deadline;
        this.inFlight = inFlight;
        this.pool = new ThreadPoolExecutor(inFlight, inFlight, 30, TimeUnit.SECONDS, new LinkedBlockingQueue<>(), r -> {
            Thread t = new Thread(r, "nfsd-write");
            t.setDaemon(true);
            return t;
        });
        pool.allowCoreThreadTimeOut(true);
    }

    /** Serves {@link #stuck()} as the gauge {@value #STUCK}; returns this. */
    public NfsdWrites register(WorkloadMetrics metrics) {
        metrics.gauge(STUCK, "writes to nfsd's procfs (a client's expiry, a filesystem's revocation) past their deadline whose"
                + " thread is still inside the kernel (at " + inFlight + " every such write is refused until one returns)",
                callback -> callback.call(stuck()));
        return this;
    }

    /** The writes past their deadline that have not returned from the kernel yet. */
    public synchronized int stuck() {
        return stuck;
    }

    /** The writes running now (stuck ones included). */
    synchronized int running() {
        return running.size();
    }

    /**
     * Writes {@code text} to the existing {@code file} (never created). True when the write returned within the
     * deadline, done or failed (a failure is logged: the file went, or the kernel refused it); false when it did
     * not return in time or was refused because {@code inFlight} writes are running (both logged).
     */
    public boolean write(Path file, String text) {
        Key key = new Key(file, text);
        Write write;
        synchronized (this) {
            write = running.get(key);
            if (write == null) {
                if (running.size() >= inFlight) {
                    LOG.warning(() -> "not writing " + file + ": all " + inFlight + " nfsd writes are stuck in the kernel"
                            + " (a hung backing device; dmesg tells); tried again at the next deny or start-up");
                    return false;
                }
                write = new Write(key);
                running.put(key, write);
                pool.execute(write);
            }
        }
        try {
            write.done.get(deadline.toNanos(), TimeUnit.NANOSECONDS);
            return true;
        } catch (ExecutionException e) {
            LOG.warning(() -> "cannot write " + file + ": " + e.getCause());
            return true;
        } catch (TimeoutException e) {
            abandon(write);
            LOG.warning(() -> "writing " + file + " did not return within " + deadline.toMillis() + " ms: left to the kernel"
                    + " (a hung backing device; dmesg tells); tried again at the next deny or start-up");
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            abandon(write);
            return false;
        }
    }

    private synchronized void abandon(Write write) {
        if (!write.finished && !write.abandoned) {
            write.abandoned = true;
            stuck++;
        }
    }

    /** One write on a worker; its entry goes when it returns, and it stops counting as stuck. */
    private final class Write implements Runnable {
        private final Key key;
        private final CompletableFuture<Void> done = new CompletableFuture<>();
        private boolean finished;
        private boolean abandoned;

        Write(Key key) {
            this.key = key;
        }

        @Override
        public void run() {
            try {
                Files.writeString(key.file(), key.text(), StandardOpenOption.WRITE);
                done.complete(null);
            } catch (IOException | RuntimeException e) {
                done.completeExceptionally(e);
            } finally {
                synchronized (NfsdWrites.this) {
                    finished = true;
                    running.remove(key);
                    if (abandoned) {
                        stuck--;
                    }
                }
            }
        }
    }
}
