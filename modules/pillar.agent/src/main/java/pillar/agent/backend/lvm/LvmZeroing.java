package pillar.agent.backend.lvm;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.function.LongSupplier;
import java.util.logging.Logger;

import pillar.agent.backend.BackendException.Kind;
import pillar.agent.backend.BackendException;
import pillar.agent.backend.BackgroundJobs;
import pillar.agent.backend.BlockCopy;
import pillar.agent.backend.lvm.LvmReport.Lv;
import pillar.api.value.ByteSize;
import pillar.api.value.VolumeId;
import pillar.runtime.exec.CommandFailedException;

/**
 * The zeroing of a linear LV before its removal, as a job of the backend's {@link BackgroundJobs}, chunk by chunk
 * ({@link DeviceZeroing}): the delete and its retries answer BUSY with the progress until the LV reads zeroes from
 * start to end, and only then go on to lvremove, so extents never go back to the group unzeroed. The durable state
 * is one tag of the LV, {@value #ZEROED_TAG}{@code <bytes>} (bytes {@code [0, bytes)} read zeroes on stable
 * storage): added with 0 before the first chunk, which marks the LV as being deleted (never adopted, copied onto
 * nor grown), and swapped after a flush at most every {@link #CHECKPOINT_EVERY}. A restart resumes at the
 * checkpoint; several such tags count as the lowest.
 */
final class LvmZeroing {
    /** The prefix of the checkpoint tag of a linear LV being zeroed for its removal. */
    static final String ZEROED_TAG = "pillar-csi.zeroed:";
    /**
     * The longest time between two checkpoints: what an agent restart costs at most, traded against one LVM
     * metadata commit (and one archived copy of the metadata) per checkpoint.
     */
    static final Duration CHECKPOINT_EVERY = Duration.ofSeconds(5);
    private static final Logger LOG = Logger.getLogger(LvmZeroing.class.getName());

    private final Lvm lvm;
    private final DeviceZeroing zeroing;
    private final BackgroundJobs jobs;
    private final BlockCopy.Devices devices;
    private final LongSupplier nanoTime;
    private final Duration callWait;
    /**
     * The LVs whose job ended whole and no call has seen it yet: in memory only (after a restart the next
     * delete zeroes again from the checkpoint), and trusted only while the LV carries its zeroing tag.
     */
    private final java.util.Set<VolumeId> whole = java.util.concurrent.ConcurrentHashMap.newKeySet();

    LvmZeroing(Lvm lvm, DeviceZeroing zeroing, BackgroundJobs jobs, BlockCopy.Devices devices, LongSupplier nanoTime,
               Duration callWait) {
        this.lvm = lvm;
        this.zeroing = zeroing;
        this.jobs = jobs;
        this.devices = devices;
        this.nanoTime = nanoTime;
        this.callWait = callWait;
    }

    /** Whether the LV is being zeroed for its removal (it carries a {@value #ZEROED_TAG} tag). */
    static boolean deleting(Lv lv) {
        return !LvmSnapshots.tagged(lv, ZEROED_TAG).isEmpty();
    }

    /** The bytes from its start that read zeroes on stable storage, by its tag (the lowest of several); -1 without one. */
    static long zeroed(Lv lv) {
        return LvmSnapshots.checkpoint(lv, ZEROED_TAG);
    }

    /** A BUSY refusal of {@code what} on an LV being zeroed for its removal. */
    static BackendException refusal(VolumeId id, Lv lv, String what) {
        return new BackendException(Kind.BUSY, "volume " + id + " cannot be " + what + ": it is being deleted (zeroed up to "
                + ByteSize.of(Math.max(0, zeroed(lv))) + " of " + ByteSize.of(lv.size()) + "); retry once its DeleteVolume answered OK");
    }

    /**
     * Returns once the LV reads zeroes from start to end and its tag says so; otherwise starts or resumes the
     * job (none runs on it) and answers as {@link BackgroundJobs#answer} does: BUSY with the progress, or
     * FAILED once with a job's failure. The caller holds the volume's lock; {@code lv} is its report, owned.
     */
    void zeroed(VolumeId id, Lv lv, Path device) {
        Optional<BackgroundJobs.Job> running = jobs.onto(id);
        if (running.isEmpty()) {
            if (deleting(lv) && whole.remove(id)) {
                return; // its job ended whole after the last call stopped waiting (its tag still says the checkpoint)
            }
            running = Optional.of(start(id, lv, device, zeroed(lv)));
        }
        jobs.answer(running.get(), callWait);
        whole.remove(id);
    }

    private BackgroundJobs.Job start(VolumeId id, Lv lv, Path device, long checkpoint) {
        long size = lv.size();
        String first;
        if (checkpoint < 0) {
            first = ZEROED_TAG + 0;
            lvm.changeTags(id.value(), List.of(), List.of(first));
        } else {
            first = null;
            LOG.info(() -> "resuming the zeroing of " + lvm.path(id) + " at its checkpoint " + ByteSize.of(checkpoint) + " of "
                    + ByteSize.of(size));
        }
        long from = Math.max(0, checkpoint);
        List<String> stale = first == null ? LvmSnapshots.tagged(lv, ZEROED_TAG) : List.of(first);
        return jobs.start(id, null, "zeroing " + lvm.path(id) + " before its removal", from, size,
                job -> run(job, id, device, from, size, stale));
    }

    private boolean run(BackgroundJobs.Job job, VolumeId id, Path device, long from, long size, List<String> stale) {
        long start = nanoTime.getAsLong();
        long chunk = DeviceZeroing.chunk(size);
        Checkpoints checkpoints = new Checkpoints(id, device, job, stale);
        long nextCheckpoint = start + CHECKPOINT_EVERY.toNanos();
        long at = from;
        while (at < size) {
            if (job.stopping()) {
                checkpoints.record(at);
                long stoppedAt = at;
                LOG.info(() -> "zeroing " + lvm.path(id) + " stopped at " + ByteSize.of(stoppedAt) + " of " + ByteSize.of(size));
                return false;
            }
            long length = Math.min(chunk, size - at);
            zeroChunk(id, device, at, length);
            at += length;
            job.reached(at);
            long now = nanoTime.getAsLong();
            if (at < size && now - nextCheckpoint >= 0) {
                checkpoints.record(at);
                nextCheckpoint = now + CHECKPOINT_EVERY.toNanos();
            }
        }
        checkpoints.flush(); // whole: the lvremove follows, no tag needed (a crash before it costs the last stretch again)
        whole.add(id);
        long millis = (nanoTime.getAsLong() - start) / 1_000_000;
        LOG.info(() -> "zeroed " + lvm.path(id) + " (" + ByteSize.of(size) + ") in " + millis + " ms"
                + (from > 0 ? ", resumed at " + ByteSize.of(from) : ""));
        return true;
    }

    private void zeroChunk(VolumeId id, Path device, long at, long length) {
        try {
            zeroing.zero(device, at, length);
        } catch (CommandFailedException e) {
            if (DeviceZeroing.busy(e)) {
                throw new BackendException(Kind.FAILED, lvm.path(id) + " is in use: unexport it first (a mount or another"
                        + " exclusive holder has it open, so it was not zeroed)", e);
            }
            throw BackendException.failed("zeroing " + lvm.path(id) + " at " + ByteSize.of(at) + " before its removal failed; it is kept", e);
        }
    }

    /** The checkpoint tag of one job: flushes the device, then swaps the tag in one lvchange. */
    private final class Checkpoints {
        private final VolumeId id;
        private final Path device;
        private final BackgroundJobs.Job job;
        private List<String> current;

        Checkpoints(VolumeId id, Path device, BackgroundJobs.Job job, List<String> current) {
            this.id = id;
            this.device = device;
            this.job = job;
            this.current = current;
        }

        void record(long at) {
            String tag = ZEROED_TAG + at;
            if (current.equals(List.of(tag))) {
                return;
            }
            flush();
            lvm.changeTags(id.value(), current.stream().filter(t -> !t.equals(tag)).toList(), List.of(tag));
            current = List.of(tag);
            job.checkpointed(at);
        }

        /** The device's write cache to stable storage (blkdiscard's writes complete in it, unflushed). */
        void flush() {
            try (FileChannel channel = devices.open(device, false)) {
                channel.force(true);
            } catch (IOException e) {
                throw new BackendException(Kind.FAILED, "flushing " + lvm.path(id) + " before a checkpoint of its zeroing failed: " + e, e);
            }
        }
    }
}
