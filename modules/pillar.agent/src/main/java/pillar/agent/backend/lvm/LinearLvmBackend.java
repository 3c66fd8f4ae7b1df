package pillar.agent.backend.lvm;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.LongSupplier;
import java.util.logging.Level;
import java.util.logging.Logger;

import pillar.agent.backend.BackendException;
import pillar.agent.backend.BackendException.Kind;
import pillar.agent.backend.BackendSnapshot;
import pillar.agent.backend.BackendVolume;
import pillar.agent.backend.BackgroundJobs;
import pillar.agent.backend.BlockCopy;
import pillar.agent.backend.Creation;
import pillar.agent.backend.VolumeSource;
import pillar.agent.backend.lvm.LvmReport.Lv;
import pillar.agent.backend.lvm.LvmReport.Vg;
import pillar.agent.config.BackendConfig;
import pillar.agent.state.InstallationId;
import pillar.api.agent.v1.BackendKind;
import pillar.api.value.ByteSize;
import pillar.api.value.SnapshotId;
import pillar.api.value.VolumeId;
import pillar.runtime.exec.CallBudget;
import pillar.runtime.exec.CommandFailedException;
import pillar.runtime.exec.ProcessRunner;

/**
 * Linear LVs outside any thin pool ({@code lvm}, {@link LvmBackend}). No snapshots; a volume from a source is a
 * clone, a block copy onto a new LV run in the background ({@link BackgroundJobs}, {@link BlockCopy}).
 *
 * <p>No remanence: a delete zeroes the whole LV ({@link LvmZeroing}, in the background, checkpointed in a tag)
 * and only then runs lvremove, so no free extent ever holds a deleted volume's bytes and a new LV, or an lvextend,
 * needs no zeroing. An LV being zeroed is not adopted, grown nor copied onto (BUSY). Not covered: extents freed
 * outside the driver.
 *
 * <p>While a copy reads a source, and across a restart while its clone exists unfinished (a tag on the source),
 * the source refuses delete and expand (BUSY). {@link #close} stops the jobs, each resumable.
 */
public final class LinearLvmBackend extends LvmBackend {
    private static final Logger LOG = Logger.getLogger(LinearLvmBackend.class.getName());

    private final BlockCopy copier;
    private final BackgroundJobs jobs;
    private final LvmZeroing zeroer;
    private final Duration callWait;

    /**
     * @param devices  how a clone's copy opens the LVs' devices ({@link BlockCopy#DIRECT} on a host)
     * @param clock    the clock of the copy's checkpoints and progress
     * @param callWait how long a call waits for its background job ({@link BackgroundJobs#CALL_WAIT})
     */
    LinearLvmBackend(BackendConfig config, ProcessRunner runner, Path devRoot, Path sysRoot, Duration commandTimeout,
                     Duration deviceTimeout, InstallationId installation, BlockCopy.Devices devices, LongSupplier clock,
                     Duration callWait) {
        super(config, BackendKind.BACKEND_KIND_LVM_LINEAR, runner, devRoot, sysRoot, commandTimeout, deviceTimeout, installation);
        this.copier = new BlockCopy(devices, clock);
        this.jobs = new BackgroundJobs(config.name(), clock);
        this.zeroer = new LvmZeroing(lvm, new DeviceZeroing(runner, commandTimeout), jobs, devices, clock, callWait);
        this.callWait = callWait;
    }

    @Override
    public BackendVolume create(VolumeId id, ByteSize size, Map<String, String> options, NonZeroingPool nonZeroing) {
        checkCreate(id, options);
        checkSize(size);
        return make(id, size, roundUp(size));
    }

    /** Beyond the whole group is OUT_OF_RANGE (never fits), else NO_SPACE. */
    @Override
    BackendException noSpace(VolumeId id, ByteSize rounded, CommandFailedException e) {
        Vg vg = volumeGroup();
        if (rounded.bytes() > vg.size()) {
            return new BackendException(Kind.OUT_OF_RANGE, "volume " + id + " of " + rounded + " is larger than volume group "
                    + config.pool() + " (" + ByteSize.of(vg.size()) + ")", e);
        }
        return super.noSpace(id, rounded, e);
    }

    @Override
    public ByteSize expand(VolumeId id, ByteSize required) {
        refuseWhileCopying(id, "resized");
        return super.expand(id, required);
    }

    /** Cancels a copy onto the volume first; refused (BUSY) while a copy reads it. */
    @Override
    public void delete(VolumeId id) {
        boolean copying = jobs.onto(id).filter(job -> job.source != null).isPresent(); // a zeroing job goes on
        if (copying && !jobs.cancel(id)) {
            throw new BackendException(Kind.BUSY, "the copy onto " + lvm.path(id) + " did not stop within "
                    + BackgroundJobs.STOP_WAIT.toSeconds() + " s of its cancel (a device not answering?); the delete is retried");
        }
        jobs.readingFrom(id).ifPresent(copy -> {
            throw new BackendException(Kind.BUSY, "volume " + id + " is the source of a clone being copied (" + copy.describe()
                    + "): it cannot be deleted before that copy is finished (or the clone " + copy.volume + " is deleted); retry");
        });
        super.delete(id);
    }

    /** The whole LV zeroed ({@link LvmZeroing}) before its extents go back to the group. */
    @Override
    void beforeRemove(VolumeId id, Lv lv) {
        hold(id, lv, "deleted");
        zeroer.zeroed(id, lv, usable(id, lv).device());
    }

    @Override
    void grow(VolumeId id, Lv lv, ByteSize rounded) {
        lvm.extend(id, rounded);
    }

    @Override
    public Capacity capacity() {
        Vg vg = volumeGroup();
        return new Capacity(ByteSize.of(vg.size()), ByteSize.of(vg.free()));
    }

    @Override
    public BackendSnapshot snapshot(SnapshotId id, VolumeId source) {
        throw new BackendException(Kind.UNSUPPORTED, "backend " + config.name() + " is an LVM linear volume group: it cannot "
                + "take snapshots (use a thin pool)");
    }

    /**
     * A clone: a new LV of its own tagged {@value LvmSnapshots#COPYING_TAG}{@code <request>}, onto which the
     * source's device is copied in the background (skipping the source's zero chunks on a fresh LV, which reads
     * zeroes as every delete zeroed its LV), checkpointed in a {@value LvmSnapshots#COPIED_TAG}{@code <bytes>} tag
     * after an fsync; whole, one lvchange swaps those tags for the content tag, and only such an LV is returned.
     * Each call waits for the copy at most {@link BackgroundJobs#CALL_WAIT}, then answers BUSY with the progress;
     * a retry never starts a second copy, and after a restart resumes at the checkpoint. Restores are UNSUPPORTED,
     * LINKED is INVALID (linear LVs share no blocks); DEFAULT and INDEPENDENT are the same full copy. The source
     * is only read, crash-consistent at best while in use.
     */
    @Override
    public BackendVolume create(VolumeId id, ByteSize size, Map<String, String> options, NonZeroingPool nonZeroing,
                                VolumeSource source) {
        checkCreate(id, options);
        VolumeSource.FromVolume from = switch (source) {
            case VolumeSource.FromSnapshot s -> throw new BackendException(Kind.UNSUPPORTED, "backend " + config.name()
                    + " is an LVM linear volume group: it has no snapshots to restore " + s.snapshot() + " from (use a thin pool)");
            case VolumeSource.FromVolume v -> v;
        };
        if (from.mode() == VolumeSource.Mode.LINKED) {
            throw new BackendException(Kind.INVALID, "backend " + config.name() + ": an LVM linear volume cannot share blocks: a clone"
                    + " is a full copy; ask for independent or default");
        }
        checkSize(size);
        ByteSize rounded = roundUp(size);
        String request = LvmSnapshots.request(from, false, rounded);
        String copying = LvmSnapshots.COPYING_TAG + request;
        String content = LvmSnapshots.CONTENT_TAG + request;
        Optional<Lv> existing = lookup(id);
        boolean fresh = false;
        if (existing.isEmpty()) {
            Lv src = source(from, source);
            if (rounded.bytes() < src.size()) {
                throw new BackendException(Kind.OUT_OF_RANGE, "volume " + id + " of " + rounded + " is smaller than its source ("
                        + ByteSize.of(src.size()) + ")");
            }
            switch (lvm.create(id, rounded, List.of(TAG, installationTag, copying))) {
                case Creation.NoRoom full -> throw noSpace(id, rounded, full.cause());
                case Creation.NameTaken taken -> LOG.fine(() -> lvm.path(id) + " was made meanwhile");
                case Creation.Made made -> fresh = true;
            }
            existing = lookup(id);
        }
        Lv lv = existing.orElseThrow(() -> new BackendException(Kind.FAILED, "lvcreate made " + id + " but lvs does not show it"));
        if (LvmZeroing.deleting(lv)) {
            throw LvmZeroing.refusal(id, lv, "copied onto");
        }
        boolean finished = lv.tags().contains(content) && !LvmSnapshots.unfinished(lv);
        if (!owns(lv) || !(finished || lv.tags().contains(copying))) {
            throw new BackendException(Kind.CONFLICT, "an LV named " + id + " already exists in volume group " + config.pool()
                    + " and was not made from " + request + " (" + (owns(lv) ? LvmSnapshots.contents(lv) : ownership(lv)) + ")");
        }
        if (lv.size() != rounded.bytes()) {
            throw new BackendException(Kind.CONFLICT, "volume " + id + " already exists with " + ByteSize.of(lv.size())
                    + ", not the " + rounded + " requested");
        }
        BackendVolume target = usable(id, lv);
        if (finished) {
            // the copy tags the LV finished as its last step and leaves the registry just after: answer OK once it
            // has left, so that the OK frees the source at once (its delete and resize check the registry)
            jobs.onto(id).ifPresent(c -> c.await(CallBudget.cap(callWait)));
            return target;
        }
        BackgroundJobs.Job copy = jobs.onto(id).orElse(null);
        if (copy == null && !fresh && finished(id, content)) {
            return target; // the copy tagged it finished and left the registry since the lookup above
        }
        if (copy == null) {
            copy = startCopy(id, from, source, lv, target, fresh, copying, content);
        }
        jobs.answer(copy, callWait);
        return target;
    }

    /** Whether a copy onto {@code id} is in this agent's registry: running, waiting in line, or failed and not reported yet. */
    boolean copyRegistered(VolumeId id) {
        return jobs.onto(id).isPresent();
    }

    /**
     * Whether the LV is tagged a finished copy now: read again when no copy onto it is registered, since a copy tags
     * the LV finished, then leaves the registry, both possibly between a retry's lookup and its look at the registry.
     */
    private boolean finished(VolumeId id, String content) {
        return lookup(id).filter(lv -> lv.tags().contains(content) && !LvmSnapshots.unfinished(lv)).isPresent();
    }

    /** The source of a clone: this backend's and whole; NOT_FOUND when missing, BUSY while it is itself being copied. */
    private Lv source(VolumeSource.FromVolume from, VolumeSource source) {
        Lv src = lookup(from.volume()).filter(this::owns).orElseThrow(() -> source.missing(lvm.where()));
        if (LvmSnapshots.unfinished(src)) {
            throw new BackendException(Kind.BUSY, "volume " + from.volume() + " is itself a clone whose copy is not finished ("
                    + LvmSnapshots.contents(src) + "): it can be cloned once its own CreateVolume answers OK; retry");
        }
        return src;
    }

    /** Starts the copy onto the unfinished LV: from 0 onto a fresh LV, else from its checkpoint reading the target. */
    private BackgroundJobs.Job startCopy(VolumeId id, VolumeSource.FromVolume from, VolumeSource source, Lv lv, BackendVolume target,
                                        boolean fresh, String copying, String content) {
        Lv src = source(from, source);
        if (src.size() > lv.size()) {
            throw new BackendException(Kind.OUT_OF_RANGE, "source " + from.volume() + " grew to " + ByteSize.of(src.size())
                    + " while its copy onto " + id + " (" + ByteSize.of(lv.size()) + ") was interrupted: delete the clone and clone again");
        }
        List<String> checkpoints = LvmSnapshots.copiedTags(lv);
        long resume = fresh ? 0 : Math.min(LvmSnapshots.copied(lv), src.size());
        Path device = usable(from.volume(), src).device();
        String what = lvm.path(from.volume()) + " to " + lvm.path(id);
        String cloning = LvmSnapshots.CLONING_TAG + id.value();
        if (!src.tags().contains(cloning)) {
            lvm.changeTags(from.volume().value(), List.of(), List.of(cloning)); // held across a restart too
        }
        if (resume > 0) {
            LOG.info(() -> "resuming the copy of " + what + " at its checkpoint " + ByteSize.of(resume) + " of " + ByteSize.of(src.size()));
        }
        return jobs.start(id, from.volume(), "copying " + what, resume, src.size(), copy -> {
            List<String> previous = new ArrayList<>(checkpoints);
            BlockCopy.Result result = copier.copy(what, device, target.device(), resume, src.size(), fresh, new BlockCopy.Progress() {
                @Override
                public boolean stopped() {
                    return copy.stopping();
                }

                @Override
                public void reached(long done) {
                    copy.reached(done);
                }

                @Override
                public void checkpoint(long done) {
                    String tag = LvmSnapshots.COPIED_TAG + done;
                    if (!previous.contains(tag)) {
                        lvm.changeTags(id.value(), previous, List.of(tag));
                        previous.clear();
                        previous.add(tag);
                    }
                    copy.checkpointed(done);
                }
            });
            if (result.stopped()) {
                return false;
            }
            List<String> off = new ArrayList<>(previous);
            off.addFirst(copying);
            lvm.changeTags(id.value(), off, List.of(content));
            release(from.volume(), cloning);
            LOG.info(() -> "made " + lvm.path(id) + " of " + ByteSize.of(lv.size()) + " as a copy of " + lvm.path(from.volume()) + " ("
                    + ByteSize.of(result.written()) + " written, " + ByteSize.of(result.skipped()) + " of zeroes skipped"
                    + (resume > 0 ? ", resumed at " + ByteSize.of(resume) : "") + ")");
            return true;
        });
    }

    /** Takes the clone's hold off its source; a failure leaves a stale tag, which the source's next delete or expand drops. */
    private void release(VolumeId source, String cloning) {
        try {
            lvm.changeTags(source.value(), List.of(cloning), List.of());
        } catch (BackendException e) {
            LOG.log(Level.WARNING, "the clone's tag " + cloning + " stays on " + lvm.path(source) + " (its next delete or expand"
                    + " takes it off)", e);
        }
    }

    /**
     * The hold that outlives the process: a source tagged {@value LvmSnapshots#CLONING_TAG}{@code <clone>} whose clone
     * still exists, unfinished and copying from it, is refused (BUSY) even when no copy runs; a stale tag is dropped.
     */
    @Override
    void hold(VolumeId id, Lv lv, String what) {
        List<String> stale = new ArrayList<>();
        for (String tag : LvmSnapshots.cloningTags(lv)) {
            String clone = tag.substring(LvmSnapshots.CLONING_TAG.length());
            boolean held = lvm.lv(clone).filter(this::owns).map(c -> c.tags().stream().anyMatch(t -> t.startsWith(
                    LvmSnapshots.COPYING_TAG + "volume/" + id.value() + "/"))).orElse(false);
            if (held) {
                throw new BackendException(Kind.BUSY, "volume " + id + " cannot be " + what + ": it is the source of the clone " + clone
                        + ", whose copy was interrupted (a failure or an agent restart) and resumes when its CreateVolume is retried; finish or"
                        + " delete that clone first");
            }
            stale.add(tag);
        }
        if (!stale.isEmpty()) {
            lvm.changeTags(id.value(), stale, List.of());
            LOG.info(() -> "took the stale clone tags " + stale + " off " + lvm.path(id));
        }
    }

    /** Refuses to change a volume a copy reads from or writes to (BUSY, naming the copy). */
    private void refuseWhileCopying(VolumeId id, String what) {
        Optional<BackgroundJobs.Job> copy = jobs.readingFrom(id).or(() -> jobs.onto(id).filter(c -> c.failure().isEmpty()));
        copy.ifPresent(c -> {
            throw new BackendException(Kind.BUSY, "volume " + id + " cannot be " + what + " while " + c.describe() + "; retry once the"
                    + " copy is finished (the clone's CreateVolume answers OK)");
        });
    }

    /** Stops the clones' copies and the zeroings, each at a checkpoint the next call resumes from. */
    @Override
    public void close() {
        jobs.close();
    }

    @Override
    boolean inPlace(Lv lv) {
        return lv.pool().isEmpty();
    }

    /** A plain (linear or striped) LV outside any thin pool; a thin LV, a snapshot, a RAID LV, ... is the wrong kind. */
    @Override
    Optional<String> wrongKind(Lv lv) {
        return lv.type() == LvTypes.PLAIN && inPlace(lv) ? Optional.empty()
                : Optional.of(LvTypes.describe(lv) + ", not a linear LV outside any thin pool");
    }

    @Override
    String placement() {
        return "";
    }
}
