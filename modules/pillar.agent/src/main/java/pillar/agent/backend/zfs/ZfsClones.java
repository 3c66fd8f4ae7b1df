package pillar.agent.backend.zfs;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.logging.Level;
import java.util.logging.Logger;

import pillar.agent.backend.BackendException.Kind;
import pillar.agent.backend.BackendException;
import pillar.agent.backend.BackendVolume;
import pillar.agent.backend.BackgroundJobs;
import pillar.agent.backend.VolumeBackend;
import pillar.agent.backend.VolumeSource;
import pillar.api.value.ByteSize;
import pillar.api.value.VolumeId;
import pillar.runtime.exec.ProcessRunner;

/**
 * Restores and clones below one parent, the same for zvols and filesystem datasets (what differs is
 * the backend's {@link ZfsLayout}): a LINKED volume is {@code zfs clone} of the snapshot, an
 * INDEPENDENT one a copy in the background ({@link BackgroundJobs}): {@code zfs send | zfs recv -s}
 * relayed through the agent into {@link ZfsSnapshots#receiving}, whose saved partial state (its resume
 * token) is the durable checkpoint a later call resumes from after a failure or an agent restart; once
 * complete, its received snapshot destroyed, sized, and renamed to the volume's name. The call that starts
 * the copy and its retries answer BUSY (ABORTED) with the progress, OK once it is whole; a delete of the
 * volume stops the copy and throws the partial state away ({@link #abandon}). A clone of a volume passes
 * through {@link ZfsSnapshots#passage}, destroyed with {@code -d} (it goes with the linked clone) or once
 * the copy is whole or abandoned. The new volume carries the ownership mark and
 * {@value ZfsSnapshots#CONTENT_PROPERTY}, so that a retry of the same request returns it (finishing a
 * growth a crash cut short) and any other request is a conflict.
 */
final class ZfsClones implements AutoCloseable {
    private static final Logger LOG = Logger.getLogger(ZfsClones.class.getName());
    /** The property of a partial receive's saved state: the token its resume starts from, {@code -} for none. */
    private static final String RESUME_TOKEN = "receive_resume_token";

    private final Zfs zfs;
    private final ZfsSnapshotCommands commands;
    private final ZfsSnapshots snapshots;
    private final ZfsLayout layout;
    private final String parent;
    private final String owner;
    private final BackgroundJobs jobs;
    private final Duration callWait;

    /**
     * @param name     the backend's name, in its copy threads' names
     * @param callWait how long a call waits for a copy before answering BUSY with its progress
     */
    ZfsClones(Zfs zfs, ZfsSnapshotCommands commands, ZfsSnapshots snapshots, ZfsLayout layout, String parent, String owner,
              String name, Duration callWait) {
        this.zfs = zfs;
        this.commands = commands;
        this.snapshots = snapshots;
        this.layout = layout;
        this.parent = parent;
        this.owner = owner;
        this.jobs = new BackgroundJobs(name, System::nanoTime);
        this.callWait = callWait;
    }

    /**
     * {@link VolumeBackend#create(VolumeId, ByteSize, java.util.Map, VolumeBackend.NonZeroingPool, VolumeSource)}
     * once the backend has checked the options: at least {@code size} (rounded up to the source's
     * granularity) and at least the source's size (OUT_OF_RANGE), a larger one grown.
     */
    BackendVolume create(VolumeId id, ByteSize size, VolumeSource source) {
        String dataset = zfs.dataset(id);
        boolean linked = source.mode() != VolumeSource.Mode.INDEPENDENT;
        // the origin: its snapshot's name, size and granularity (a clone of a volume passes through a new snapshot)
        String origin;
        long originSize;
        long granularity;
        switch (source) {
            case VolumeSource.FromSnapshot s -> {
                ZfsSnapshots.Found found = snapshots.any(s.snapshot()).filter(f -> !f.deferred())
                        .orElseThrow(() -> source.missing(parent));
                origin = found.name();
                originSize = found.snapshot().size().bytes();
                granularity = found.granularity();
            }
            case VolumeSource.FromVolume v -> {
                Optional<ZfsLayout.Own> from = layout.own(v.volume());
                if (from.isEmpty()) {
                    Optional<ZfsLayout.Made> made = layout.made(id).filter(m -> m.owned()
                            && m.content().equals(source.request(linked, BackendException.roundUp(size, m.granularity(), "a multiple of"))));
                    if (made.isPresent()) {
                        return layout.usable(id, made.get().size()); // the source went after the clone was made: the retry is done
                    }
                    throw source.missing(parent);
                }
                origin = snapshots.passage(v.volume(), id);
                originSize = from.get().size();
                granularity = from.get().granularity();
            }
        }
        ByteSize rounded = BackendException.roundUp(size, granularity, "a multiple of");
        if (rounded.bytes() < originSize) {
            throw new BackendException(Kind.OUT_OF_RANGE, "volume " + id + " of " + size + " is smaller than its source ("
                    + ByteSize.of(originSize) + ")");
        }
        String content = source.request(linked, rounded);
        Optional<ZfsLayout.Made> existing = layout.made(id);
        if (existing.isEmpty()) {
            make(dataset, id, rounded, content, source, origin, rounded.bytes() > originSize && !layout.sizedByProperties(), linked);
            existing = layout.made(id);
        }
        ZfsLayout.Made made = existing.orElseThrow(() -> new BackendException(Kind.FAILED, dataset + " was made but zfs get does not find it"));
        if (!made.owned() || !content.equals(made.content())) {
            throw new BackendException(Kind.CONFLICT, "a dataset named " + dataset + " already exists and was not made from "
                    + content + " (" + (made.content().isEmpty() ? made.ownership() : "it was made from " + made.content()) + ")");
        }
        if (made.size() < rounded.bytes() && linked) {
            layout.grow(dataset, rounded); // a crash came between the clone and its growth
            return layout.usable(id, rounded.bytes());
        }
        if (made.size() != rounded.bytes()) {
            throw new BackendException(Kind.CONFLICT, "volume " + id + " already exists with " + ByteSize.of(made.size())
                    + ", not the " + rounded + " requested");
        }
        return layout.usable(id, made.size());
    }

    /** The commands of a new linked clone of {@code origin} as {@code dataset}; a copy goes to {@link #copy}. */
    private void make(String dataset, VolumeId id, ByteSize rounded, String content, VolumeSource source, String origin,
                      boolean grow, boolean linked) {
        List<String> properties = new ArrayList<>(layout.properties(rounded));
        properties.add(ZfsBackend.MANAGED_PROPERTY + "=" + owner);
        properties.add(ZfsSnapshots.CONTENT_PROPERTY + "=" + content);
        if (!linked) {
            copy(dataset, id, rounded, content, source, origin, grow, properties);
            return;
        }
        if (source instanceof VolumeSource.FromVolume) {
            commands.snapshot(origin, List.of());
        }
        commands.clone(origin, dataset, properties);
        if (grow) {
            layout.grow(dataset, rounded);
        }
        if (source instanceof VolumeSource.FromVolume) {
            commands.destroy(origin, "-d");
        }
        LOG.info(() -> "made " + layout.noun() + " " + dataset + " of " + rounded + " from " + content);
    }

    /**
     * The copy of {@code origin} as {@code dataset}: the job registered for {@code id} answered, or one
     * started (from the partial receive's checkpoint when there is one) and answered; returns once it is
     * whole, else throws BUSY with its progress or FAILED once with its failure.
     */
    private void copy(String dataset, VolumeId id, ByteSize rounded, String content, VolumeSource source, String origin,
                      boolean grow, List<String> properties) {
        BackgroundJobs.Job job = jobs.onto(id).orElse(null);
        if (job == null && layout.made(id).isPresent()) {
            return; // a copy renamed it and left the registry since the caller's lookup
        }
        if (job == null) {
            if (source instanceof VolumeSource.FromVolume) {
                commands.snapshot(origin, List.of()); // false when a copy before a restart made it
            }
            String receiving = snapshots.receiving(id);
            ZfsSnapshotCommands.Received state = received(receiving);
            long total = commands.streamSize(origin);
            long from = state.partial() ? Math.min(commands.resumedAt(state.token()), total) : 0;
            String what = "copying " + origin + " to " + dataset;
            if (from > 0) {
                LOG.info(() -> "resuming the copy of " + origin + " to " + dataset + " at its checkpoint " + ByteSize.of(from));
            }
            job = jobs.start(id, null, what, from, total, copy -> {
                if (!receive(receiving, state, origin, properties, from, copy)) {
                    return false;
                }
                commands.destroy(receiving + origin.substring(origin.indexOf('@')), "");
                if (grow) {
                    layout.grow(receiving, rounded);
                }
                layout.rename(receiving, dataset);
                if (source instanceof VolumeSource.FromVolume) {
                    commands.destroy(origin, "");
                }
                LOG.info(() -> "made " + layout.noun() + " " + dataset + " of " + rounded + " as a copy of " + content
                        + (from > 0 ? " (resumed at " + ByteSize.of(from) + ")" : ""));
                return true;
            });
        }
        jobs.answer(job, callWait);
    }

    /**
     * The receive of {@code origin} into {@code receiving} in a job, from {@code state} (read when the job was
     * started, under the volume's lock), resuming a partial one: false when the job was stopped (the partial
     * state stays, for a later resume). A receive found complete (a job before a restart finished it but not
     * the steps after) has nothing to do.
     */
    private boolean receive(String receiving, ZfsSnapshotCommands.Received state, String origin, List<String> properties, long from,
                            BackgroundJobs.Job copy) {
        if (state == ZfsSnapshotCommands.Received.COMPLETE) {
            return true;
        }
        ProcessRunner.Relayed relayed = commands.receiveResumable(origin, state, receiving, properties, new ProcessRunner.Flow() {
            @Override
            public boolean stopped() {
                return copy.stopping();
            }

            @Override
            public void passed(long bytes) {
                copy.reached(Math.min(from + bytes, copy.total));
            }
        });
        if (relayed.stopped()) {
            ZfsSnapshotCommands.Received left = received(receiving);
            copy.checkpointed(left.partial() ? commands.resumedAt(left.token()) : 0);
            return false;
        }
        copy.reached(copy.total);
        copy.checkpointed(copy.total);
        return true;
    }

    /**
     * Before a delete of {@code id}: stops its copy, if one runs (BUSY when it does not stop), and throws
     * away what a copy onto it left: the partial or complete receive and, for a clone of a volume, the
     * passage snapshot. Nothing to do for a volume that was never a copy.
     */
    void abandon(VolumeId id) {
        boolean registered = jobs.onto(id).isPresent();
        if (registered && !jobs.cancel(id)) {
            throw new BackendException(Kind.BUSY, "the copy onto volume " + id + " did not stop within "
                    + BackgroundJobs.STOP_WAIT.toSeconds() + " s of the delete's cancel (a device not answering?); the delete is retried");
        }
        String receiving = snapshots.receiving(id);
        ZfsSnapshotCommands.Received state = received(receiving);
        if (!registered && !state.exists()) {
            return;
        }
        // the passages first, the partial receive last: a delete cut short (its budget spent on a slow pool) leaves the
        // partial receive, by which its retry knows to come back here
        for (String passage : snapshots.passagesTo(id)) {
            commands.destroy(passage, "-d");
        }
        if (state.partial()) {
            try {
                commands.abortReceive(receiving);
            } catch (BackendException e) {
                LOG.log(Level.WARNING, "zfs recv -A of " + receiving + " failed; destroying it instead", e);
            }
        }
        if (state.exists()) {
            commands.destroy(receiving, "-r");
        }
        LOG.info(() -> "abandoned the copy onto " + zfs.dataset(id) + " (its partial receive and passage are destroyed)");
    }

    /**
     * How far a resumable receive into {@code target} got: {@link ZfsSnapshotCommands.Received#ABSENT} (no
     * dataset), partial (interrupted: the resume token of its saved state) or complete.
     */
    private ZfsSnapshotCommands.Received received(String target) {
        return zfs.properties(target, RESUME_TOKEN).map(p -> p.getOrDefault(RESUME_TOKEN, ZfsOutput.Property.NONE).value())
                .map(token -> token.equals("-") || token.isEmpty() ? ZfsSnapshotCommands.Received.COMPLETE
                        : ZfsSnapshotCommands.Received.partial(token))
                .orElse(ZfsSnapshotCommands.Received.ABSENT);
    }

    /** Stops the copies, each at its last checkpoint (the partial receive), which the next CreateVolume resumes. */
    @Override
    public void close() {
        jobs.close();
    }
}
