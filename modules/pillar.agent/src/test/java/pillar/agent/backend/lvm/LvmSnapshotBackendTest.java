package pillar.agent.backend.lvm;

import static org.assertj.core.api.Assertions.assertThat;
import static pillar.agent.backend.BackendAssertions.assertFails;

import java.nio.file.Files;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import pillar.agent.backend.BackendException.Kind;
import pillar.agent.backend.BackendSnapshot;
import pillar.agent.backend.BackendVolume;
import pillar.agent.backend.VolumeBackend.NonZeroingPool;
import pillar.agent.backend.VolumeSource.Mode;
import pillar.agent.backend.VolumeSource;
import pillar.api.value.ByteSize;
import pillar.api.value.SnapshotId;
import pillar.api.value.VolumeId;
import pillar.runtime.exec.Command;

/**
 * LvmBackend's thin snapshots, restores and clones against the fake LVM: tags and names,
 * idempotent retries, ALREADY_EXISTS, NOT_FOUND and OUT_OF_RANGE, growth, the data a restore reads,
 * every delete order leaving only the pool, and the linear backend refusing.
 */
class LvmSnapshotBackendTest extends FakeLvmFixture {
    private static final VolumeId SRC = VolumeId.of("pvc-src");
    private static final VolumeId COPY = VolumeId.of("pvc-copy");
    private static final SnapshotId SNAP = SnapshotId.of("snapshot-1");
    private static final ByteSize SIZE = ByteSize.ofMiB(64);
    private static final String INSTALLATION = LvmBackend.INSTALLATION_TAG + "embedded";

    private BackendVolume src;

    @BeforeEach
    void aThinSourceVolume() throws Exception {
        src = thin.create(SRC, SIZE, Map.of());
    }

    private BackendVolume restore(VolumeId id, ByteSize size, Mode mode) {
        return thin.create(id, size, Map.of(), NonZeroingPool.REFUSE, new VolumeSource.FromSnapshot(SNAP, mode));
    }

    private BackendVolume cloneOf(VolumeId id, VolumeId source) {
        return thin.create(id, SIZE, Map.of(), NonZeroingPool.REFUSE, new VolumeSource.FromVolume(source, Mode.DEFAULT));
    }

    private static byte[] write(BackendVolume volume, int fill) throws Exception {
        byte[] data = new byte[4096];
        Arrays.fill(data, (byte) fill);
        Files.write(volume.device(), data);
        return data;
    }

    private void assertOnlyThePoolLeft() {
        assertThat(lvm.names()).containsExactly("pool0");
    }

    @Test
    void aSnapshotIsAnInactiveThinSnapshotWithItsOwnTagsAndARetryReturnsIt() {
        BackendSnapshot taken = thin.snapshot(SNAP, SRC);

        assertThat(taken).isEqualTo(new BackendSnapshot(SNAP, SRC, SIZE, FakeLvm.FIRST_TIME.plusSeconds(1)));
        assertThat(lvm.argvs()).contains(List.of("lvcreate", "-y", "-s", "--addtag", "pillar-csi.snapshot", "--addtag", INSTALLATION,
                "--addtag", "pillar-csi.source:pvc-src", "-n", "snap.snapshot-1", "vg0/pvc-src"));
        assertThat(lvm.tags("snap.snapshot-1")).containsExactly("pillar-csi.snapshot", INSTALLATION, "pillar-csi.source:pvc-src");
        assertThat(lvm.active("snap.snapshot-1")).as("LVM skips a thin snapshot's activation").isFalse();
        assertThat(thin.snapshot(SNAP, SRC)).isEqualTo(taken);
        assertThat(lvm.creations("snap.snapshot-1")).isEqualTo(1);
        assertThat(thin.findSnapshot(SNAP)).contains(taken);
        assertThat(thin.listSnapshots()).containsExactly(taken);
        assertThat(thin.list()).extracting(BackendVolume::id).containsExactly(SRC);
        assertThat(thin.snapshots()).isTrue();
    }

    @Test
    void theSameIdOfAnotherSourceIsAlreadyExistsAndAMissingSourceNotFound() {
        thin.create(PVC1, SIZE, Map.of());
        thin.snapshot(SNAP, SRC);

        assertFails(() -> thin.snapshot(SNAP, PVC1), Kind.CONFLICT, "already exists of volume pvc-src, not of pvc-1");
        assertFails(() -> thin.snapshot(SnapshotId.of("snapshot-2"), VolumeId.of("pvc-none")), Kind.NOT_FOUND, "pvc-none");
        assertFails(() -> thin.create(COPY, SIZE, Map.of(), NonZeroingPool.REFUSE,
                new VolumeSource.FromSnapshot(SnapshotId.of("snapshot-none"), Mode.DEFAULT)), Kind.NOT_FOUND, "does not exist");
        assertFails(() -> cloneOf(COPY, VolumeId.of("pvc-none")), Kind.NOT_FOUND, "does not exist");
        assertThat(lvm.names()).containsExactly("pool0", "pvc-1", "pvc-src", "snap.snapshot-1");
    }

    @Test
    void aRestoreIsAnActiveThinSnapshotOfTheSnapshotWithItsDataAndARetryReturnsIt() throws Exception {
        byte[] atSnapshot = write(src, 1);
        thin.snapshot(SNAP, SRC);
        byte[] later = write(src, 2);

        BackendVolume restored = restore(COPY, SIZE, Mode.DEFAULT);

        assertThat(restored).isEqualTo(new BackendVolume(COPY, SIZE, lvm.node("pvc-copy")));
        assertThat(Files.readAllBytes(restored.device())).isEqualTo(atSnapshot);
        assertThat(Files.readAllBytes(src.device())).isEqualTo(later);
        assertThat(lvm.argvs()).contains(List.of("lvcreate", "-y", "-s", "-kn", "--addtag", "pillar-csi", "--addtag", INSTALLATION,
                "--addtag", "pillar-csi.content:snapshot/snapshot-1/linked/67108864", "-n", "pvc-copy", "vg0/snap.snapshot-1"));
        assertThat(lvm.tags("pvc-copy")).containsExactly("pillar-csi", INSTALLATION, "pillar-csi.content:snapshot/snapshot-1/linked/67108864");
        assertThat(restore(COPY, SIZE, Mode.LINKED)).isEqualTo(restored);
        assertThat(lvm.creations("pvc-copy")).isEqualTo(1);
        assertThat(thin.find(COPY)).contains(restored);
        assertThat(thin.list()).extracting(BackendVolume::id).containsExactly(COPY, SRC);
        assertFails(() -> restore(COPY, ByteSize.ofMiB(128), Mode.LINKED), Kind.CONFLICT,
                "was not made from snapshot/snapshot-1/linked/134217728 (made from snapshot/snapshot-1/linked/67108864)");
        assertFails(() -> cloneOf(COPY, SRC), Kind.CONFLICT, "was not made from volume/pvc-src/linked");
        assertFails(() -> restore(SRC, SIZE, Mode.LINKED), Kind.CONFLICT, "(no content tag)");
    }

    @Test
    void anIndependentRestoreOrCloneIsRefusedOnAThinPool() {
        thin.snapshot(SNAP, SRC);

        assertFails(() -> restore(COPY, SIZE, Mode.INDEPENDENT), Kind.INVALID, "shares its blocks with the source");
        assertFails(() -> thin.create(COPY, SIZE, Map.of(), NonZeroingPool.REFUSE, new VolumeSource.FromVolume(SRC, Mode.INDEPENDENT)),
                Kind.INVALID, "(ask for DEFAULT or LINKED)");
        assertThat(lvm.exists("pvc-copy")).isFalse();
    }

    @Test
    void aRestoreSmallerThanTheSourceIsOutOfRangeAndALargerOneGrows() {
        thin.snapshot(SNAP, SRC);

        assertFails(() -> restore(COPY, ByteSize.ofMiB(32), Mode.LINKED), Kind.OUT_OF_RANGE, "smaller than its source (64MiB)");
        assertThat(lvm.exists("pvc-copy")).isFalse();
        BackendVolume grown = restore(COPY, ByteSize.ofMiB(126), Mode.LINKED); // rounded up to 4 MiB extents
        assertThat(grown.size()).isEqualTo(ByteSize.ofMiB(128));
        assertThat(lvm.sizeOf("pvc-copy")).isEqualTo(ByteSize.ofMiB(128).bytes());
        assertThat(lvm.argvs()).contains(List.of("lvextend", "-L", "134217728b", "vg0/pvc-copy"));
        assertThat(restore(COPY, ByteSize.ofMiB(128), Mode.LINKED)).isEqualTo(grown);
    }

    @Test
    void aRetryFinishesAGrowthACrashCutShort() {
        thin.snapshot(SNAP, SRC);
        // the crash: lvcreate -s ran, lvextend did not
        lvm.run(new Command(List.of("lvcreate", "-y", "-s", "-kn", "--addtag", "pillar-csi", "--addtag", INSTALLATION, "--addtag",
                "pillar-csi.content:snapshot/snapshot-1/linked/134217728", "-n", "pvc-copy", "vg0/snap.snapshot-1"), TIMEOUT));

        assertThat(restore(COPY, ByteSize.ofMiB(128), Mode.LINKED).size()).isEqualTo(ByteSize.ofMiB(128));
        assertThat(lvm.sizeOf("pvc-copy")).isEqualTo(ByteSize.ofMiB(128).bytes());
    }

    @Test
    void aCloneOfAVolumeReadsItsDataAndThenWritesStayOnTheirSide() throws Exception {
        byte[] before = write(src, 3);

        BackendVolume clone = cloneOf(COPY, SRC);

        assertThat(Files.readAllBytes(clone.device())).isEqualTo(before);
        assertThat(lvm.tags("pvc-copy")).containsExactly("pillar-csi", INSTALLATION, "pillar-csi.content:volume/pvc-src/linked/67108864");
        assertThat(lvm.argvs()).contains(List.of("lvcreate", "-y", "-s", "-kn", "--addtag", "pillar-csi", "--addtag", INSTALLATION,
                "--addtag", "pillar-csi.content:volume/pvc-src/linked/67108864", "-n", "pvc-copy", "vg0/pvc-src"));
        byte[] cloneData = write(clone, 4);
        assertThat(Files.readAllBytes(src.device())).isEqualTo(before);
        write(src, 5);
        assertThat(Files.readAllBytes(clone.device())).isEqualTo(cloneData);
        assertThat(thin.listSnapshots()).isEmpty();

        thin.delete(SRC);
        assertThat(cloneOf(COPY, SRC)).as("a retry after the source went").isEqualTo(clone);
        thin.delete(COPY);
        assertOnlyThePoolLeft();
    }

    @Test
    void deletingTheSnapshotBeforeItsRestoreLeavesTheRestoreWhole() throws Exception {
        byte[] atSnapshot = write(src, 6);
        thin.snapshot(SNAP, SRC);
        BackendVolume restored = restore(COPY, SIZE, Mode.LINKED);

        thin.deleteSnapshot(SNAP);
        thin.deleteSnapshot(SNAP); // a retry

        assertThat(thin.findSnapshot(SNAP)).isEmpty();
        assertThat(thin.listSnapshots()).isEmpty();
        assertThat(Files.readAllBytes(restored.device())).isEqualTo(atSnapshot);
        assertFails(() -> restore(VolumeId.of("pvc-again"), SIZE, Mode.LINKED), Kind.NOT_FOUND, "snapshot snapshot-1 does not exist");
        thin.delete(COPY);
        thin.delete(SRC);
        assertOnlyThePoolLeft();
    }

    @Test
    void deletingTheSourceBeforeItsSnapshotKeepsTheSnapshotRestorable() throws Exception {
        byte[] atSnapshot = write(src, 7);
        thin.snapshot(SNAP, SRC);

        thin.delete(SRC);

        assertThat(thin.find(SRC)).isEmpty();
        assertThat(thin.list()).isEmpty();
        assertThat(thin.findSnapshot(SNAP)).hasValueSatisfying(s -> assertThat(s.source()).isEqualTo(SRC));
        assertThat(thin.snapshot(SNAP, SRC).source()).as("a retried CreateSnapshot after the source went").isEqualTo(SRC);
        BackendVolume restored = restore(COPY, SIZE, Mode.LINKED);
        assertThat(Files.readAllBytes(restored.device())).isEqualTo(atSnapshot);
        thin.deleteSnapshot(SNAP);
        thin.delete(COPY);
        assertOnlyThePoolLeft();
    }

    @Test
    void tagsOfOursCopiedFromAnOriginAreTakenOff() {
        lvm.addTagged("snap.snapshot-1", SIZE.bytes(), "pool0", List.of("pillar-csi.snapshot", INSTALLATION, "pillar-csi.source:pvc-src",
                "pillar-csi", "pillar-csi.content:volume/pvc-x/linked/1", "operator-tag"));

        assertThat(thin.snapshot(SNAP, SRC).source()).isEqualTo(SRC);

        assertThat(lvm.argvs()).contains(List.of("lvchange", "--deltag", "pillar-csi", "--deltag", "pillar-csi.content:volume/pvc-x/linked/1",
                "vg0/snap.snapshot-1"));
        assertThat(lvm.tags("snap.snapshot-1")).containsExactly("pillar-csi.snapshot", INSTALLATION, "pillar-csi.source:pvc-src",
                "operator-tag");
    }

    @Test
    void anLvOfASnapshotsNameThatIsNotOursIsNeverAdoptedListedNorRemoved() {
        lvm.addForeign("snap.snapshot-1", SIZE.bytes(), "pool0");
        lvm.addTagged("snap.snapshot-2", SIZE.bytes(), "pool0", List.of("pillar-csi.snapshot", LvmBackend.INSTALLATION_TAG + "other",
                "pillar-csi.source:pvc-src"));

        assertFails(() -> thin.snapshot(SNAP, SRC), Kind.CONFLICT, "is not snapshot snapshot-1 of backend thin");
        assertFails(() -> thin.deleteSnapshot(SNAP), Kind.FAILED, "refusing to remove vg0/snap.snapshot-1");
        assertThat(thin.findSnapshot(SnapshotId.of("snapshot-2"))).isEmpty();
        assertThat(thin.listSnapshots()).isEmpty();
        assertThat(thin.list()).extracting(BackendVolume::id).containsExactly(SRC);
        assertThat(lvm.exists("snap.snapshot-1")).isTrue();
    }

    @Test
    void aRestoreIsRefusedOnAPoolThatDoesNotZeroUnlessAcceptedAndAReservedNameIsInvalid() {
        thin.snapshot(SNAP, SRC);
        lvm.setZeroing("pool0", false);

        assertFails(() -> restore(COPY, SIZE, Mode.LINKED), Kind.UNAVAILABLE, "does not zero new chunks");
        assertThat(thin.create(COPY, SIZE, Map.of(), NonZeroingPool.ACCEPT, new VolumeSource.FromSnapshot(SNAP, Mode.LINKED)).id())
                .isEqualTo(COPY);
        assertFails(() -> restore(VolumeId.of("snapshot-x"), SIZE, Mode.LINKED), Kind.INVALID, "LVM reserves LV names starting with");
        assertFails(() -> thin.create(COPY, SIZE, Map.of("k", "v"), NonZeroingPool.ACCEPT, new VolumeSource.FromSnapshot(SNAP, Mode.LINKED)),
                Kind.INVALID, "take no volume options");
    }

    @Test
    void aLinearBackendRefusesSnapshotsNamingItsLayout() {
        BackendVolume volume = linear.create(PVC1, SIZE, Map.of());

        assertThat(linear.snapshots()).isFalse();
        assertFails(() -> linear.snapshot(SNAP, PVC1), Kind.UNSUPPORTED,
                "backend fast is an LVM linear volume group: it cannot take snapshots (use a thin pool)");
        assertFails(() -> linear.create(COPY, SIZE, Map.of(), NonZeroingPool.REFUSE, new VolumeSource.FromSnapshot(SNAP, Mode.DEFAULT)),
                Kind.UNSUPPORTED, "it has no snapshots to restore snapshot-1 from (use a thin pool)");
        assertThat(linear.listSnapshots()).isEmpty();
        assertThat(linear.findSnapshot(SNAP)).isEmpty();
        linear.deleteSnapshot(SNAP);
        assertThat(linear.list()).containsExactly(volume);
    }
}
