package pillar.controller.leader;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.logging.Level;
import java.util.logging.Logger;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderCallbacks;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderElectionConfigBuilder;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderElector;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderElectorBuilder;
import io.fabric8.kubernetes.client.extended.leaderelection.resourcelock.LeaseLock;
import pillar.controller.volume.Leading;

/**
 * This replica's part in the election of the one controller that acts (fabric8's LeaderElector on
 * a Lease). While it leads, {@code onStart} has run (the reconcilers) and {@link #now()} is true
 * (the CSI calls that change volumes are served); when it stops leading, {@code onStop} runs and
 * it stands again for election, for as long as it is open. Closing it releases the lease.
 *
 * <p>Two replicas may both believe they lead for a moment (a partition, a paused process); the
 * volumes are protected from that by fencing, not by this.
 */
public final class LeaderElection implements Leading, AutoCloseable {
    private static final Logger LOG = Logger.getLogger(LeaderElection.class.getName());

    private final KubernetesClient client;
    private final String namespace;
    private final LeaderElectionSettings settings;
    private final Runnable onStart;
    private final Runnable onStop;
    private final AtomicBoolean leading = new AtomicBoolean();
    private final ScheduledExecutorService executor;
    private volatile RenewalTrackingLock lock;
    private volatile boolean open = true;
    private volatile CompletableFuture<?> round;

    /**
     * @param onStart runs (once per term) when this replica starts leading
     * @param onStop  runs (once per term) when it stops leading
     */
    public LeaderElection(KubernetesClient client, String namespace, LeaderElectionSettings settings, Runnable onStart,
                          Runnable onStop) {
        this.client = client;
        this.namespace = namespace;
        this.settings = settings;
        this.onStart = onStart;
        this.onStop = onStop;
        // two threads: the watchdog runs even while a renewal hangs on the API server
        this.executor = Executors.newScheduledThreadPool(2, r -> {
            Thread thread = new Thread(r, "pillar-leader-election");
            thread.setDaemon(true);
            return thread;
        });
    }

    /** Stands for election; returns at once. */
    public LeaderElection start() {
        executor.execute(this::stand);
        long period = settings.retryPeriod().toMillis();
        executor.scheduleWithFixedDelay(this::watchdog, period, period, TimeUnit.MILLISECONDS);
        return this;
    }

    /**
     * True while this replica leads and renewed the lease within the renew deadline, on its own
     * clock: a leader that cannot renew stops acting by itself, before another may take over.
     */
    @Override
    public boolean now() {
        RenewalTrackingLock current = lock;
        return leading.get() && current != null && renewedRecently(current);
    }

    private boolean renewedRecently(RenewalTrackingLock current) {
        long at = current.renewedAt();
        return at != Long.MIN_VALUE && System.nanoTime() - at < settings.renewDeadline().toNanos();
    }

    /** Ends a term whose renewals stopped (the election library may not notice: a hung or failed loop). */
    private void watchdog() {
        RenewalTrackingLock current = lock;
        if (leading.get() && current != null && !renewedRecently(current)) {
            LOG.warning(() -> settings.identity() + " could not renew the lease within " + settings.renewDeadline()
                    + ": stepping down");
            CompletableFuture<?> term = round;
            stopped();
            if (term != null) {
                term.cancel(true); // the round ends; it is stood again from its completion
            }
        }
    }

    /** The identity this replica holds the lease with. */
    public String identity() {
        return settings.identity();
    }

    private synchronized void stand() {
        if (!open) {
            return;
        }
        LeaderElector elector = new LeaderElectorBuilder(client, executor).withConfig(new LeaderElectionConfigBuilder()
                .withName(settings.lease())
                .withLock(trackingLock())
                .withLeaseDuration(settings.leaseDuration())
                .withRenewDeadline(settings.renewDeadline())
                .withRetryPeriod(settings.retryPeriod())
                .withReleaseOnCancel(true)
                .withLeaderCallbacks(new LeaderCallbacks(this::started, this::stopped,
                        leader -> LOG.info(() -> "Lease " + namespace + "/" + settings.lease() + " is held by " + leader)))
                .build()).build();
        round = elector.start();
        round.whenComplete((ok, failure) -> {
            if (failure != null && open) {
                LOG.log(Level.WARNING, "leader election stopped: " + failure + "; standing again", failure);
            }
            stopped();
            if (open) {
                executor.schedule(this::stand, settings.retryPeriod().toMillis(), TimeUnit.MILLISECONDS);
            }
        });
    }

    private RenewalTrackingLock trackingLock() {
        lock = new RenewalTrackingLock(new LeaseLock(namespace, settings.lease(), settings.identity()));
        return lock;
    }

    private void started() {
        if (leading.compareAndSet(false, true)) {
            LOG.info(() -> settings.identity() + " leads: reconciling and serving volume changes");
            run(onStart, "start");
        }
    }

    private void stopped() {
        if (leading.compareAndSet(true, false)) {
            LOG.warning(() -> settings.identity() + " stopped leading: reconcilers stopped, volume changes refused");
            run(onStop, "stop");
        }
    }

    private static void run(Runnable action, String what) {
        try {
            action.run();
        } catch (RuntimeException e) {
            LOG.log(Level.SEVERE, "leader " + what + " action failed: " + e, e);
        }
    }

    /** Stops standing for election; a lease held is released, and {@code onStop} runs if this replica led. */
    @Override
    public void close() {
        open = false;
        CompletableFuture<?> current;
        synchronized (this) {
            current = round;
        }
        if (current != null) {
            current.cancel(true);
        }
        stopped();
        executor.shutdown();
        try {
            executor.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
