package pillar.controller.reconcile.loop;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * Keys waiting for work, each at most once, run on a shared scheduler but never two at once for
 * one key. Adding a key already waiting keeps the earlier time; adding a key while it runs runs it
 * again afterwards. The worker answers when it wants its key again. Nothing runs before
 * {@link #open()}: keys added before wait for it.
 */
final class WorkQueue {
    private final ScheduledExecutorService scheduler;
    private final Function<String, Optional<Duration>> worker;
    private final Map<String, Entry> entries = new HashMap<>();
    private boolean open;
    private boolean closed;
    private long tickets;

    WorkQueue(ScheduledExecutorService scheduler, Function<String, Optional<Duration>> worker) {
        this.scheduler = scheduler;
        this.worker = worker;
    }

    /** Starts running keys, those added so far first. */
    synchronized void open() {
        open = true;
        entries.forEach((key, entry) -> {
            if (!entry.running && entry.future == null) {
                schedule(key, entry, Math.max(0, entry.due - System.nanoTime()));
            }
        });
    }

    synchronized void close() {
        closed = true;
        entries.values().forEach(e -> {
            if (e.future != null) {
                e.future.cancel(false);
            }
        });
        entries.clear();
    }

    /**
     * How many keys are due and wait for a thread (or for {@link #open()}): the backlog. A key waiting
     * for a later time (a poll, a backoff) or running now is not counted.
     */
    synchronized int depth() {
        long now = System.nanoTime();
        return (int) entries.values().stream().filter(e -> e.waiting && e.due - now <= 0).count();
    }

    /** Run {@code key} after {@code delay}, or earlier if it is already due earlier. */
    synchronized void add(String key, Duration delay) {
        if (closed) {
            return;
        }
        long due = System.nanoTime() + delay.toNanos();
        Entry entry = entries.computeIfAbsent(key, k -> new Entry());
        if (entry.running) {
            entry.rerun = entry.rerun == null ? due : Math.min(entry.rerun, due);
            return;
        }
        if (entry.waiting && entry.due <= due) {
            return;
        }
        if (entry.future != null) {
            entry.future.cancel(false);
            entry.future = null;
        }
        entry.waiting = true;
        entry.due = due;
        if (open) {
            schedule(key, entry, delay.toNanos());
        }
    }

    private void schedule(String key, Entry entry, long delayNanos) {
        long ticket = ++tickets;
        entry.ticket = ticket;
        try {
            entry.future = scheduler.schedule(() -> run(key, ticket), delayNanos, TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException e) {
            // the scheduler is shutting down with the controller
            entry.future = null;
        }
    }

    private void run(String key, long ticket) {
        synchronized (this) {
            Entry entry = entries.get(key);
            if (closed || entry == null || entry.ticket != ticket || entry.running) {
                return;
            }
            entry.future = null;
            entry.waiting = false;
            entry.running = true;
        }
        Optional<Duration> again = Optional.empty();
        try {
            again = worker.apply(key);
        } finally {
            synchronized (this) {
                Entry entry = entries.get(key);
                if (entry != null) {
                    entry.running = false;
                    Long rerun = entry.rerun;
                    entry.rerun = null;
                    entries.remove(key);
                    if (rerun != null) {
                        add(key, Duration.ofNanos(Math.max(0, rerun - System.nanoTime())));
                    }
                    again.ifPresent(delay -> add(key, delay));
                }
            }
        }
    }

    private static final class Entry {
        private boolean running;
        private boolean waiting;
        private long due;
        private long ticket;
        private Long rerun;
        private ScheduledFuture<?> future;
    }
}
