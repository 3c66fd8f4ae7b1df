package pillar.agent.backend.zfs;

import static org.assertj.core.api.Assertions.assertThat;
import static pillar.agent.backend.BackendAssertions.assertFails;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Semaphore;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;

import pillar.agent.backend.BackendException.Kind;
import pillar.agent.backend.BackendSnapshot;
import pillar.agent.backend.BackendVolume;
import pillar.agent.backend.VolumeBackend.NonZeroingPool;
import pillar.agent.backend.VolumeBackend;
import pillar.agent.backend.VolumeSource.Mode;
import pillar.agent.backend.VolumeSource;
import pillar.agent.config.BackendConfig;
import pillar.agent.state.InstallationId;
import pillar.api.agent.v1.BackendKind;
import pillar.api.value.ByteSize;
import pillar.api.value.SnapshotId;
import pillar.api.value.VolumeId;
import pillar.runtime.exec.CallBudget;

/**
 * Snapshots, restores and clones of both ZFS backends against the fake zfs, the same tests for
 * ZfsVolumeBackend's zvols and ZfsDatasetBackend's filesystems (their code is shared): idempotent
 * retries, ALREADY_EXISTS and OUT_OF_RANGE, growth, and every delete order leaving nothing below the parent.
 */
@ParameterizedClass
@EnumSource(ZfsSnapshotBackendTest.Layout.class)
class ZfsSnapshotBackendTest {
    /** Which backend: what differs is the properties a clone carries and how its size is held. */
    enum Layout {
        ZVOL, DATASET;

        /** The {@code -o} pairs of a clone or copy of {@code bytes} before the mark and content. */
        List<String> made(long bytes) {
            return this == ZVOL ? List.of("-o", "volmode=dev")
                    : List.of("-o", "refquota=" + bytes, "-o", "snapdir=hidden", "-o", "sharenfs=off", "-o", "canmount=noauto");
        }

        /** A rename of a complete copy: a filesystem's with {@code -u} (it is unmounted; nothing remounts it). */
        List<String> rename(String from, String to) {
            return this == ZVOL ? List.of("zfs", "rename", from, to) : List.of("zfs", "rename", "-u", from, to);
        }
    }

    private static final VolumeId SRC = VolumeId.of("pvc-src");
    private static final VolumeId COPY = VolumeId.of("pvc-copy");
    private static final SnapshotId SNAP = SnapshotId.of("snapshot-1");
    private static final String ZVOL_ID = "/lib/udev/zvol_id";
    private static final ByteSize SIZE = ByteSize.ofMiB(64);

    @TempDir
    Path root;

    @Parameter
    Layout layout;

    private FakeZfs zfs;
    private VolumeBackend backend;

    @BeforeEach
    void setUp() {
        zfs = new FakeZfs("tank", ByteSize.ofGiB(10).bytes(), root.resolve("dev"), root.resolve("sys"), ZVOL_ID, FakeZfs.Devices.UDEV)
                .withFilesystem("tank/k8s");
        backend = newBackend();
        backend.create(SRC, SIZE, Map.of());
    }

    /** The layout's backend on the fake, as an agent (re)starting makes it. */
    private VolumeBackend newBackend() {
        return switch (layout) {
            case ZVOL -> new ZfsVolumeBackend(new BackendConfig("zfs", BackendKind.BACKEND_KIND_ZFS_ZVOL, "tank", "k8s"), zfs,
                    root.resolve("dev"), root.resolve("sys"), Path.of(ZVOL_ID), Duration.ofSeconds(5), Duration.ofSeconds(5));
            case DATASET -> new ZfsDatasetBackend(new BackendConfig("nfs", BackendKind.BACKEND_KIND_ZFS_DATASET, "tank", "k8s"), zfs,
                    Duration.ofSeconds(5), Duration.ofSeconds(5), InstallationId.EMBEDDED);
        };
    }

    @AfterEach
    void stopCopies() {
        backend.close();
    }

    /** A zvol's device exists; a dataset is mounted at its volume's path. */
    private void assertUsable(BackendVolume volume) {
        if (layout == Layout.ZVOL) {
            assertThat(volume.device()).exists();
        } else {
            assertThat(volume.mountPath()).isEqualTo(Path.of("/tank/k8s", volume.id().value()));
            assertThat(zfs.mounted("tank/k8s/" + volume.id().value())).isTrue();
        }
    }

    private BackendVolume restore(VolumeId id, ByteSize size, Mode mode) {
        return backend.create(id, size, Map.of(), NonZeroingPool.REFUSE, new VolumeSource.FromSnapshot(SNAP, mode));
    }

    private BackendVolume cloneOf(VolumeId id, Mode mode) {
        return cloneOf(id, mode, SRC);
    }

    private BackendVolume cloneOf(VolumeId id, Mode mode, VolumeId source) {
        return backend.create(id, SIZE, Map.of(), NonZeroingPool.REFUSE, new VolumeSource.FromVolume(source, mode));
    }

    /** {@code call} within a call budget of 1 s: it waits for a copy at most half of it. */
    private static BackendVolume within(java.util.function.Supplier<BackendVolume> call) {
        return CallBudget.within(Duration.ofSeconds(1), call);
    }

    /** Waits until the copy took every permit (it then waits for the next): a generous bound, not a timing check. */
    private static void awaitAllTaken(Semaphore chunks) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (chunks.availablePermits() > 0) {
            assertThat(System.nanoTime() - deadline).as("the copy took its permits").isNegative();
            Thread.sleep(5);
        }
    }

    private void assertOnlyParentLeft() {
        assertThat(zfs.below("tank/k8s")).containsExactly("tank/k8s");
    }

    @Test
    void aSnapshotCarriesItsIdAndSourceAndARetryReturnsIt() {
        BackendSnapshot taken = backend.snapshot(SNAP, SRC);

        assertThat(taken.id()).isEqualTo(SNAP);
        assertThat(taken.source()).isEqualTo(SRC);
        assertThat(taken.size()).isEqualTo(SIZE);
        assertThat(zfs.properties("tank/k8s/pvc-src@snapshot-1")).containsEntry("io.pillar-csi:managed", "embedded")
                .containsEntry("io.pillar-csi:snapshot", "snapshot-1").containsEntry("io.pillar-csi:source", "pvc-src")
                .containsEntry("io.pillar-csi:size", Long.toString(SIZE.bytes()));
        assertThat(backend.snapshot(SNAP, SRC)).isEqualTo(taken);
        assertThat(backend.findSnapshot(SNAP)).contains(taken);
        assertThat(backend.listSnapshots()).containsExactly(taken);
        assertThat(backend.snapshots()).isTrue();
    }

    @Test
    void theSameIdOfAnotherSourceIsAlreadyExistsAndAMissingSourceNotFound() {
        backend.create(VolumeId.of("pvc-other"), SIZE, Map.of());
        backend.snapshot(SNAP, SRC);

        assertFails(() -> backend.snapshot(SNAP, VolumeId.of("pvc-other")), Kind.CONFLICT, "not of pvc-other");
        assertFails(() -> backend.snapshot(SnapshotId.of("snapshot-2"), VolumeId.of("pvc-none")), Kind.NOT_FOUND, "pvc-none");
        assertFails(() -> backend.create(COPY, SIZE, Map.of(), NonZeroingPool.REFUSE,
                new VolumeSource.FromSnapshot(SnapshotId.of("snapshot-none"), Mode.DEFAULT)), Kind.NOT_FOUND, "does not exist");
        assertFails(() -> cloneOf(COPY, Mode.DEFAULT, VolumeId.of("pvc-none")), Kind.NOT_FOUND, "does not exist");
    }

    @Test
    void aLargerRestoreWaitsWhileTheNewCloneIsBusyThenGrowsIt() {
        backend.snapshot(SNAP, SRC);
        // right after zfs clone the module is still making the zvol's device: zfs set volsize says busy
        // (a dataset's clone is made with its refquota: nothing is set after it)
        zfs.markSettling("tank/k8s/pvc-copy", 2);

        BackendVolume restored = restore(COPY, ByteSize.ofMiB(128), Mode.DEFAULT);

        assertThat(restored.size()).isEqualTo(ByteSize.ofMiB(128));
        assertThat(zfs.size("tank/k8s/pvc-copy")).isEqualTo(ByteSize.ofMiB(128).bytes());
        // a dataset's only zfs set is its canmount=on once made
        assertThat(zfs.argvs().stream().anyMatch(a -> a.get(1).equals("set") && !a.get(2).equals("canmount=on")))
                .isEqualTo(layout == Layout.ZVOL);
        assertUsable(restored);
    }

    @Test
    void aLinkedRestoreIsACloneMarkedWithItsSourceAndARetryReturnsIt() {
        backend.snapshot(SNAP, SRC);

        BackendVolume restored = restore(COPY, SIZE, Mode.DEFAULT);

        assertThat(restored.size()).isEqualTo(SIZE);
        assertUsable(restored);
        List<String> clone = new ArrayList<>(List.of("zfs", "clone"));
        clone.addAll(layout.made(SIZE.bytes()));
        clone.addAll(List.of("-o", "io.pillar-csi:managed=embedded", "-o", "io.pillar-csi:content=snapshot/snapshot-1/linked/67108864",
                "tank/k8s/pvc-src@snapshot-1", "tank/k8s/pvc-copy"));
        assertThat(zfs.argvs()).contains(clone);
        assertThat(backend.find(COPY)).contains(restored);
        assertThat(restore(COPY, SIZE, Mode.LINKED)).isEqualTo(restored);
        assertFails(() -> restore(COPY, SIZE, Mode.INDEPENDENT), Kind.CONFLICT, "snapshot/snapshot-1/linked");
        assertFails(() -> restore(COPY, ByteSize.ofMiB(128), Mode.LINKED), Kind.CONFLICT, "was made from");
    }

    @Test
    void aRestoreSmallerThanTheSourceIsOutOfRangeAndALargerOneGrows() {
        backend.snapshot(SNAP, SRC);

        assertFails(() -> restore(COPY, ByteSize.ofMiB(32), Mode.LINKED), Kind.OUT_OF_RANGE, "smaller than its source");
        assertThat(zfs.exists("tank/k8s/pvc-copy")).isFalse();
        assertThat(restore(COPY, ByteSize.ofMiB(128), Mode.LINKED).size()).isEqualTo(ByteSize.ofMiB(128));
        assertThat(restore(VolumeId.of("pvc-indep"), ByteSize.ofMiB(96), Mode.INDEPENDENT).size()).isEqualTo(ByteSize.ofMiB(96));
        assertThat(zfs.size("tank/k8s/pvc-indep")).isEqualTo(ByteSize.ofMiB(96).bytes());
        assertThat(zfs.size("tank/k8s/pvc-copy")).isEqualTo(ByteSize.ofMiB(128).bytes());
    }

    @Test
    void anIndependentRestoreIsReceivedUnderATemporaryNameAndDependsOnNothing() {
        backend.snapshot(SNAP, SRC);

        BackendVolume copy = restore(COPY, SIZE, Mode.INDEPENDENT);

        List<String> receive = new ArrayList<>(List.of("zfs", "recv", "-s", "-u"));
        receive.addAll(layout.made(SIZE.bytes()));
        receive.addAll(List.of("-o", "io.pillar-csi:managed=embedded", "-o", "io.pillar-csi:content=snapshot/snapshot-1/independent/67108864",
                "tank/k8s/pvc-copy_receiving"));
        assertThat(zfs.argvs()).contains(List.of("zfs", "send", "tank/k8s/pvc-src@snapshot-1"), receive,
                layout.rename("tank/k8s/pvc-copy_receiving", "tank/k8s/pvc-copy"));
        assertUsable(copy);
        assertThat(restore(COPY, SIZE, Mode.INDEPENDENT)).isEqualTo(copy);
        assertThat(zfs.below("tank/k8s/pvc-copy")).containsExactly("tank/k8s/pvc-copy");
        backend.deleteSnapshot(SNAP);
        backend.delete(SRC);
        assertThat(zfs.below("tank/k8s")).containsExactly("tank/k8s", "tank/k8s/pvc-copy");
        assertThat(backend.list()).extracting(BackendVolume::id).containsExactly(COPY);
    }

    @Test
    void aCopyCutShortIsResumedFromItsPartialReceiveNeverReturned() {
        backend.snapshot(SNAP, SRC);
        zfs.failNextReceive();

        assertFails(() -> restore(COPY, SIZE, Mode.INDEPENDENT).id(), Kind.FAILED, "zfs recv");
        assertThat(zfs.resumeToken("tank/k8s/pvc-copy_receiving")).isPresent();
        assertThat(backend.find(COPY)).isEmpty();
        assertThat(backend.list()).extracting(BackendVolume::id).containsExactly(SRC);

        assertThat(restore(COPY, SIZE, Mode.INDEPENDENT).id()).isEqualTo(COPY);
        assertThat(zfs.exists("tank/k8s/pvc-copy_receiving")).isFalse();
        assertThat(zfs.argvs()).filteredOn(a -> a.subList(0, 3).equals(List.of("zfs", "send", "-t"))).hasSize(1);
        assertThat(zfs.argvs()).filteredOn(a -> a.equals(List.of("zfs", "send", "tank/k8s/pvc-src@snapshot-1"))).hasSize(1);
    }

    /** A copy longer than its call: BUSY with its progress, one copy for every retry, the volume only once whole. */
    @Test
    void aCopyLongerThanItsCallAnswersBusyWithItsProgressUntilItIsWhole() {
        backend.snapshot(SNAP, SRC);
        Semaphore chunks = new Semaphore(3);
        zfs.paceReceives(chunks);

        assertFails(() -> within(() -> restore(COPY, SIZE, Mode.INDEPENDENT)), Kind.BUSY,
                "copying tank/k8s/pvc-src@snapshot-1 to tank/k8s/pvc-copy in the background");
        assertFails(() -> within(() -> restore(COPY, SIZE, Mode.INDEPENDENT)), Kind.BUSY, "in the background");
        assertThat(backend.find(COPY)).isEmpty();
        assertThat(backend.list()).extracting(BackendVolume::id).containsExactly(SRC);
        chunks.release(1000);

        assertUsable(restore(COPY, SIZE, Mode.INDEPENDENT));
        assertThat(zfs.argvs()).filteredOn(a -> a.equals(List.of("zfs", "send", "tank/k8s/pvc-src@snapshot-1"))).hasSize(1);
    }

    /** The agent's shutdown stops a copy at its partial receive; the next agent's call resumes it there, never from 0. */
    @Test
    void aCopyStoppedByTheShutdownIsResumedByTheNextAgentAtItsCheckpoint() throws InterruptedException {
        backend.snapshot(SNAP, SRC);
        Semaphore chunks = new Semaphore(3);
        zfs.paceReceives(chunks);
        assertFails(() -> within(() -> restore(COPY, SIZE, Mode.INDEPENDENT)), Kind.BUSY, "in the background");
        awaitAllTaken(chunks);

        backend.close();
        String token = "1-fake-" + 3 * (1 << 20) + "-tank/k8s/pvc-src@snapshot-1";
        assertThat(zfs.resumeToken("tank/k8s/pvc-copy_receiving")).hasValue(token);
        backend = newBackend();
        assertFails(() -> within(() -> restore(COPY, SIZE, Mode.INDEPENDENT)), Kind.BUSY, "resumed at 3MiB");
        chunks.release(1000);

        assertUsable(restore(COPY, SIZE, Mode.INDEPENDENT));
        assertThat(zfs.argvs()).contains(List.of("zfs", "send", "-t", token));
        assertThat(zfs.argvs()).filteredOn(a -> a.equals(List.of("zfs", "send", "tank/k8s/pvc-src@snapshot-1"))).hasSize(1);
    }

    /**
     * A delete of a volume being copied stops the copy and leaves nothing of it, no partial receive and no
     * passage: while this agent copies, and after a restart, when only the partial receive is left.
     */
    @Test
    void aDeleteOfAVolumeBeingCopiedLeavesNothingOfTheCopy() {
        zfs.paceReceives(new Semaphore(2));
        assertFails(() -> within(() -> cloneOf(COPY, Mode.INDEPENDENT)), Kind.BUSY, "in the background");
        VolumeId other = VolumeId.of("pvc-other");
        assertFails(() -> within(() -> cloneOf(other, Mode.INDEPENDENT)), Kind.BUSY, "in the background");

        backend.delete(COPY);
        assertThat(zfs.below("tank/k8s")).containsExactly("tank/k8s", "tank/k8s/pvc-other_receiving", "tank/k8s/pvc-src",
                "tank/k8s/pvc-src@clone_pvc-other");
        backend.close();
        backend = newBackend();
        backend.delete(other);
        assertThat(zfs.below("tank/k8s")).containsExactly("tank/k8s", "tank/k8s/pvc-src");
        backend.delete(other); // a retry
        backend.delete(SRC);
        assertOnlyParentLeft();
    }

    /**
     * A delete of a copy destroys the passage before the partial receive: one whose call budget ran out in
     * between (a slow pool: measured in ZfsLongCopyKernelIT) leaves the partial receive, by which its retry
     * knows there is a copy to abandon, never a passage alone that no retry would look for.
     */
    @Test
    void aDeleteDestroysThePassageBeforeThePartialReceiveThatItsRetryFinds() {
        zfs.paceReceives(new Semaphore(2));
        VolumeId other = VolumeId.of("pvc-other");
        assertFails(() -> within(() -> cloneOf(other, Mode.INDEPENDENT)), Kind.BUSY, "in the background");
        backend.close();
        backend = newBackend();
        int before = zfs.argvs().size();

        backend.delete(other);

        List<List<String>> destroys = zfs.argvs().subList(before, zfs.argvs().size()).stream()
                .filter(a -> a.size() > 1 && a.get(1).equals("destroy")).toList();
        assertThat(destroys).containsExactly(List.of("zfs", "destroy", "-d", "tank/k8s/pvc-src@clone_pvc-other"),
                List.of("zfs", "destroy", "-r", "tank/k8s/pvc-other_receiving"));
        assertThat(zfs.below("tank/k8s")).containsExactly("tank/k8s", "tank/k8s/pvc-src");
    }

    @Test
    void aLinkedCloneOfAVolumeLeavesOnlyADeferredPassage() {
        BackendVolume clone = cloneOf(COPY, Mode.DEFAULT);

        assertThat(clone.size()).isEqualTo(SIZE);
        assertThat(backend.listSnapshots()).isEmpty();
        assertThat(cloneOf(COPY, Mode.DEFAULT)).isEqualTo(clone);
        backend.delete(COPY);
        assertThat(zfs.below("tank/k8s")).containsExactly("tank/k8s", "tank/k8s/pvc-src");
        backend.delete(SRC);
        assertOnlyParentLeft();
    }

    @Test
    void anIndependentCloneOfAVolumeLeavesNoSnapshot() {
        cloneOf(COPY, Mode.INDEPENDENT);

        assertThat(zfs.below("tank/k8s")).containsExactly("tank/k8s", "tank/k8s/pvc-copy", "tank/k8s/pvc-src");
        backend.delete(SRC);
        backend.delete(COPY);
        assertOnlyParentLeft();
    }

    @Test
    void deletingTheSnapshotBeforeItsCloneDefersItUntilTheCloneGoes() {
        backend.snapshot(SNAP, SRC);
        restore(COPY, SIZE, Mode.LINKED);

        backend.deleteSnapshot(SNAP);

        assertThat(backend.findSnapshot(SNAP)).isEmpty();
        assertThat(backend.listSnapshots()).isEmpty();
        assertThat(zfs.exists("tank/k8s/pvc-src@snapshot-1")).isTrue();
        backend.deleteSnapshot(SNAP); // a retry
        backend.delete(COPY);
        assertThat(zfs.below("tank/k8s")).containsExactly("tank/k8s", "tank/k8s/pvc-src");
        backend.delete(SRC);
        assertOnlyParentLeft();
    }

    @Test
    void deletingTheSourceBeforeItsSnapshotHidesItAndTheSnapshotStaysRestorable() {
        backend.snapshot(SNAP, SRC);

        backend.delete(SRC);

        assertThat(backend.find(SRC)).isEmpty();
        assertThat(backend.exists(SRC)).isFalse();
        assertThat(backend.list()).isEmpty();
        assertThat(backend.findSnapshot(SNAP)).hasValueSatisfying(s -> assertThat(s.source()).isEqualTo(SRC));
        assertThat(restore(COPY, SIZE, Mode.LINKED).id()).isEqualTo(COPY);
        backend.delete(SRC); // a retry finds nothing
        backend.deleteSnapshot(SNAP);
        backend.delete(COPY);
        assertOnlyParentLeft();
    }

    @Test
    void deletingTheSourceBeforeItsCloneAndThenTheSnapshotLeavesNothing() {
        backend.snapshot(SNAP, SRC);
        restore(COPY, SIZE, Mode.LINKED);

        backend.delete(SRC);
        backend.deleteSnapshot(SNAP);
        assertThat(backend.list()).extracting(BackendVolume::id).containsExactly(COPY);
        backend.delete(COPY);

        assertOnlyParentLeft();
    }

    @Test
    void deletingTheSourceOfALinkedCloneOfAVolumeLeavesNothingOnceTheCloneGoes() {
        cloneOf(COPY, Mode.LINKED);

        backend.delete(SRC);
        assertThat(backend.list()).extracting(BackendVolume::id).containsExactly(COPY);
        backend.delete(COPY);

        assertOnlyParentLeft();
    }

    @Test
    void aHiddenVolumeBusyForAMomentWhenItsLastCloneGoesIsStillDestroyed() {
        cloneOf(COPY, Mode.LINKED);
        backend.delete(SRC);
        String hidden = zfs.below("tank/k8s").stream().filter(n -> n.contains(ZfsSnapshots.HIDDEN) && !n.contains("@"))
                .findFirst().orElseThrow();
        // held for a moment as the last clone goes (a probe, the kernel's release): seen in CI on 6.1,
        // where one refusal left the hidden source behind until the next delete
        zfs.markBusy(hidden, 2);

        backend.delete(COPY);

        assertOnlyParentLeft();
    }

    @Test
    void aHiddenVolumeIsNeverAdoptedByANewVolumeOfItsName() {
        backend.snapshot(SNAP, SRC);
        backend.delete(SRC);

        BackendVolume again = backend.create(SRC, SIZE, Map.of());

        assertThat(again.id()).isEqualTo(SRC);
        assertThat(backend.findSnapshot(SNAP)).isPresent();
        assertThat(zfs.below("tank/k8s/pvc-src")).containsExactly("tank/k8s/pvc-src");
    }
}
