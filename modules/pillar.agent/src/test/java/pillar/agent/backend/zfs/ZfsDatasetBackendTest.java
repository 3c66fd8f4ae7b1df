package pillar.agent.backend.zfs;

import static org.assertj.core.api.Assertions.assertThat;
import static pillar.agent.backend.BackendAssertions.assertFails;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

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
import pillar.runtime.exec.Command;

/**
 * ZfsDatasetBackend against the stateful fake zfs: child filesystems with refquota as their size, the
 * mountpoint as the volume's path, ownership exactly as zvols have it, growth without shrinking, and
 * the busy-destroy retry; what only a filesystem's snapshots and clones have (the rest is
 * {@link ZfsSnapshotBackendTest}'s, for both backends): the clone's own snapdir, sharenfs and mount, and
 * a delete that hides only a dataset whose dependents are snapshots.
 */
class ZfsDatasetBackendTest {
    private static final VolumeId PVC1 = VolumeId.of("pvc-1");
    private static final VolumeId PVC2 = VolumeId.of("pvc-2");
    private static final BackendConfig NFS = new BackendConfig("shared", BackendKind.BACKEND_KIND_ZFS_DATASET, "tank", "nfs");
    private static final String MANAGED = ZfsVolumeBackend.MANAGED_PROPERTY;

    @TempDir
    Path root;

    private FakeZfs zfs() {
        return new FakeZfs("tank", ByteSize.ofGiB(10).bytes(), root.resolve("dev"), root.resolve("sys"), "/lib/udev/zvol_id",
                FakeZfs.Devices.UDEV).withFilesystem("tank/nfs");
    }

    private static ZfsDatasetBackend backend(FakeZfs zfs) {
        return backend(zfs, InstallationId.EMBEDDED);
    }

    private static ZfsDatasetBackend backend(FakeZfs zfs, InstallationId installation) {
        return new ZfsDatasetBackend(NFS, zfs, Duration.ofSeconds(5), Duration.ofMillis(300), installation);
    }

    @Test
    void createMakesAMarkedChildFilesystemWithItsSizeAsRefquotaAndReturnsItsMountpoint() {
        FakeZfs zfs = zfs();

        BackendVolume volume = backend(zfs).create(PVC1, ByteSize.of(1_000_000), Map.of());

        assertThat(volume).isEqualTo(BackendVolume.filesystem(PVC1, ByteSize.of(1_000_000), Path.of("/tank/nfs/pvc-1")));
        assertThat(volume.isFilesystem()).isTrue();
        assertThat(volume.device()).isNull();
        assertThat(zfs.argvs()).contains(List.of("zfs", "create", "-u", "-o", "refquota=1000000", "-o", "snapdir=hidden", "-o",
                "sharenfs=off", "-o", MANAGED + "=" + InstallationId.EMBEDDED.value(), "tank/nfs/pvc-1"));
        assertThat(zfs.properties("tank/nfs/pvc-1")).containsEntry(MANAGED, InstallationId.EMBEDDED.value())
                .containsEntry("snapdir", "hidden").containsEntry("sharenfs", "off");
    }

    /**
     * zfs's own mounting (zfs create without -u, zfs mount, zfs destroy of a mounted dataset) runs
     * exportfs -ra and wipes every NFS export (docs/nfs.md fact 11): created with -u, mounted and
     * unmounted by mount.zfs and umount(8), destroyed unmounted.
     */
    @Test
    void noZfsCommandThatWipesTheExportsIsRun() {
        FakeZfs zfs = zfs();
        ZfsDatasetBackend backend = backend(zfs);

        backend.create(PVC1, ByteSize.ofMiB(8), Map.of());
        backend.delete(PVC1);

        List<List<String>> mounting = zfs.argvs().stream().filter(a -> !a.get(0).equals("zfs") || a.get(1).equals("create")
                || a.get(1).equals("destroy") || a.get(1).equals("mount") || a.get(1).equals("umount")).toList();
        assertThat(mounting).containsExactly(
                List.of("zfs", "create", "-u", "-o", "refquota=8388608", "-o", "snapdir=hidden", "-o", "sharenfs=off", "-o",
                        MANAGED + "=" + InstallationId.EMBEDDED.value(), "tank/nfs/pvc-1"),
                List.of("mkdir", "-p", "/tank/nfs/pvc-1"),
                List.of("mount", "-t", "zfs", "-o", "zfsutil", "tank/nfs/pvc-1", "/tank/nfs/pvc-1"),
                List.of("umount", "/tank/nfs/pvc-1"),
                List.of("zfs", "destroy", "tank/nfs/pvc-1"));
        assertThat(zfs.shareCommits()).isEmpty();
    }

    @Test
    void theMountPathIsWhereZfsMountsItBelowTheParentsMountpoint() {
        FakeZfs zfs = zfs().withProperty("tank/nfs", "mountpoint", "/srv/nfs");

        assertThat(backend(zfs).create(PVC1, ByteSize.ofMiB(8), Map.of()).mountPath()).isEqualTo(Path.of("/srv/nfs/pvc-1"));
    }

    @Test
    void anUnmountedDatasetIsRefusedRatherThanExportingTheEmptyDirectoryBelow() {
        FakeZfs zfs = zfs().withProperty("tank/nfs", "mountpoint", "none");

        assertFails(() -> backend(zfs).create(PVC1, ByteSize.ofMiB(8), Map.of()), Kind.FAILED, "is not mounted");
    }

    @Test
    void aRetriedCreateReturnsTheSameVolumeAndAnotherSizeConflicts() {
        FakeZfs zfs = zfs();
        ZfsDatasetBackend backend = backend(zfs);
        BackendVolume first = backend.create(PVC1, ByteSize.ofMiB(8), Map.of());

        assertThat(backend.create(PVC1, ByteSize.ofMiB(8), Map.of())).isEqualTo(first);
        assertFails(() -> backend.create(PVC1, ByteSize.ofMiB(16), Map.of()), Kind.CONFLICT, "already exists with");
        assertThat(backend.find(PVC1)).contains(first);
    }

    @Test
    void aDatasetItDidNotCreateIsNeverAdoptedListedGrownNorDestroyed() {
        FakeZfs zfs = zfs().withFilesystem("tank/nfs/pvc-1").withFilesystem("tank/nfs/pvc-2")
                .withProperty("tank/nfs/pvc-2", MANAGED, "other.install");
        ZfsDatasetBackend backend = backend(zfs);

        assertFails(() -> backend.create(PVC1, ByteSize.ofMiB(8), Map.of()), Kind.CONFLICT, "has no " + MANAGED);
        assertFails(() -> backend.create(PVC2, ByteSize.ofMiB(8), Map.of()), Kind.CONFLICT, "its " + MANAGED + " is other.install");
        assertThat(backend.find(PVC1)).isEmpty();
        assertThat(backend.exists(PVC2)).isFalse();
        assertThat(backend.list()).isEmpty();
        assertThat(backend.findAll(List.of(PVC1, PVC2))).isEmpty();
        assertFails(() -> backend.expand(PVC2, ByteSize.ofMiB(16)), Kind.NOT_FOUND, "does not exist");
        assertFails(() -> backend.delete(PVC1), Kind.FAILED, "refusing to destroy tank/nfs/pvc-1");
        assertThat(zfs.exists("tank/nfs/pvc-1")).isTrue();
        assertThat(backend.owner(PVC2)).contains(InstallationId.of("other.install"));
        assertThat(backend.owner(PVC1)).isEmpty();
    }

    @Test
    void aMarkInheritedFromTheParentIsNoOwnershipAndAZvolOfTheNameIsNotOurs() {
        FakeZfs zfs = zfs().withProperty("tank/nfs", MANAGED, InstallationId.EMBEDDED.value()).withFilesystem("tank/nfs/pvc-1");
        zfs.addForeignZvol("tank/nfs/pvc-2", 16384 * 4, 16384);
        zfs.withProperty("tank/nfs/pvc-2", MANAGED, InstallationId.EMBEDDED.value());
        ZfsDatasetBackend backend = backend(zfs);

        assertThat(backend.find(PVC1)).isEmpty();
        assertThat(backend.find(PVC2)).isEmpty();
        assertFails(() -> backend.create(PVC2, ByteSize.ofMiB(8), Map.of()), Kind.CONFLICT, "it is no filesystem");
        assertFails(() -> backend.delete(PVC2), Kind.FAILED, "refusing to destroy");
        assertThat(zfs.exists("tank/nfs/pvc-2")).isTrue();
    }

    @Test
    void onlyCompressionIsAnOptionAndABadOneRunsNoCommand() {
        FakeZfs zfs = zfs();
        ZfsDatasetBackend backend = backend(zfs);

        assertFails(() -> backend.create(PVC1, ByteSize.ofMiB(8), Map.of("volblocksize", "16K")), Kind.INVALID, "'volblocksize'");
        assertFails(() -> backend.create(PVC1, ByteSize.ofMiB(8), Map.of("compression", "rot13")), Kind.INVALID, "compression");
        assertFails(() -> backend.create(PVC1, ByteSize.of(0), Map.of()), Kind.OUT_OF_RANGE, "above 0");
        assertThat(zfs.argvs()).isEmpty();
        backend.create(PVC1, ByteSize.ofMiB(8), Map.of("compression", "lz4"));
        assertThat(zfs.argvs().getFirst()).containsSubsequence("-o", "compression=lz4", "tank/nfs/pvc-1");
    }

    @Test
    void expandRaisesTheRefquotaNeverLowersItAndAnEqualSizeChangesNothing() {
        FakeZfs zfs = zfs();
        ZfsDatasetBackend backend = backend(zfs);
        backend.create(PVC1, ByteSize.ofMiB(8), Map.of());

        assertThat(backend.expand(PVC1, ByteSize.ofMiB(24))).isEqualTo(ByteSize.ofMiB(24));
        assertThat(backend.find(PVC1).orElseThrow().size()).isEqualTo(ByteSize.ofMiB(24));
        int commands = zfs.argvs().size();
        assertThat(backend.expand(PVC1, ByteSize.ofMiB(24))).isEqualTo(ByteSize.ofMiB(24));
        assertThat(zfs.argvs().subList(commands, zfs.argvs().size())).noneMatch(a -> a.get(1).equals("set"));
        assertFails(() -> backend.expand(PVC1, ByteSize.ofMiB(16)), Kind.OUT_OF_RANGE, "never shrink");
        assertThat(backend.find(PVC1).orElseThrow().size()).isEqualTo(ByteSize.ofMiB(24));
        assertFails(() -> backend.expand(PVC2, ByteSize.ofMiB(16)), Kind.NOT_FOUND, "does not exist");
    }

    @Test
    void deleteDestroysItsOwnIsIdempotentAndWaitsOutABriefBusy() {
        FakeZfs zfs = zfs();
        ZfsDatasetBackend backend = backend(zfs);
        backend.create(PVC1, ByteSize.ofMiB(8), Map.of());
        zfs.markBusy("tank/nfs/pvc-1", 2);

        backend.delete(PVC1);

        assertThat(zfs.exists("tank/nfs/pvc-1")).isFalse();
        backend.delete(PVC1);
        assertThat(zfs.exists("tank/nfs")).isTrue();
    }

    @Test
    void aDatasetBusyPastTheGraceIsFailedAndKept() {
        FakeZfs zfs = zfs();
        ZfsDatasetBackend backend = backend(zfs);
        backend.create(PVC1, ByteSize.ofMiB(8), Map.of());
        zfs.markBusy("tank/nfs/pvc-1");

        assertFails(() -> backend.delete(PVC1), Kind.FAILED, "is busy: unexport it first");
        assertThat(backend.find(PVC1)).isPresent();
    }

    @Test
    void deleteWithoutThePoolIsUnavailableNotSuccess() {
        FakeZfs zfs = new FakeZfs("tank", ByteSize.ofGiB(1).bytes(), root.resolve("dev"), root.resolve("sys"), "/lib/udev/zvol_id",
                FakeZfs.Devices.UDEV);

        assertFails(() -> backend(zfs).delete(PVC1), Kind.UNAVAILABLE, "tank/nfs");
    }

    @Test
    void listAndFindAllReadOneReportOfItsOwnFilesystemsOnly() {
        FakeZfs zfs = zfs().withFilesystem("tank/nfs/foreign");
        ZfsDatasetBackend backend = backend(zfs);
        BackendVolume one = backend.create(PVC1, ByteSize.ofMiB(8), Map.of());
        BackendVolume two = backend.create(PVC2, ByteSize.ofMiB(16), Map.of());
        int before = zfs.argvs().size();

        assertThat(backend.list()).containsExactly(one, two);
        assertThat(backend.findAll(List.of(PVC2, VolumeId.of("pvc-3"), PVC1))).containsOnlyKeys(PVC2, PVC1)
                .containsEntry(PVC1, one).containsEntry(PVC2, two);
        assertThat(zfs.argvs().size() - before).isEqualTo(2);
    }

    @Test
    void capacityIsTheParentsAvailableSpace() {
        FakeZfs zfs = zfs();

        VolumeBackend.Capacity capacity = backend(zfs).capacity();

        assertThat(capacity.available()).isEqualTo(ByteSize.of(zfs.available()));
        assertThat(capacity.total()).isEqualTo(ByteSize.ofGiB(10));
    }

    private static final SnapshotId SNAP = SnapshotId.of("snapshot-1");

    @Test
    void aCloneOrCopyCarriesItsOwnSnapdirAndSharenfsWhateverTheParentSays() {
        FakeZfs zfs = zfs().withProperty("tank/nfs", "snapdir", "visible").withProperty("tank/nfs", "sharenfs", "on");
        ZfsDatasetBackend backend = backend(zfs);
        backend.create(PVC1, ByteSize.ofMiB(8), Map.of());
        backend.snapshot(SNAP, PVC1);

        backend.create(PVC2, ByteSize.ofMiB(8), Map.of(), NonZeroingPool.REFUSE, new VolumeSource.FromSnapshot(SNAP, Mode.LINKED));
        backend.create(VolumeId.of("pvc-3"), ByteSize.ofMiB(8), Map.of(), NonZeroingPool.REFUSE,
                new VolumeSource.FromVolume(PVC1, Mode.INDEPENDENT));

        for (String made : List.of("tank/nfs/pvc-2", "tank/nfs/pvc-3")) {
            assertThat(zfs.properties(made)).as(made).containsEntry("snapdir", "hidden").containsEntry("sharenfs", "off")
                    .containsEntry(MANAGED, InstallationId.EMBEDDED.value());
            assertThat(zfs.refquota(made)).as(made).isEqualTo(ByteSize.ofMiB(8).bytes());
        }
    }

    /**
     * A copy is received with -u and canmount=noauto (a receive's own mount commits the shares: fact 11),
     * renamed with -u while unmounted, set canmount=on (no remount) and mounted with mount.zfs.
     */
    @Test
    void aCopyIsReceivedUnmountedAndMountedWithMountZfsBeforeItIsReturned() {
        FakeZfs zfs = zfs();
        ZfsDatasetBackend backend = backend(zfs);
        backend.create(PVC1, ByteSize.ofMiB(8), Map.of());
        backend.snapshot(SNAP, PVC1);
        int before = zfs.argvs().size();

        BackendVolume copy = backend.create(PVC2, ByteSize.ofMiB(16), Map.of(), NonZeroingPool.REFUSE,
                new VolumeSource.FromSnapshot(SNAP, Mode.INDEPENDENT));

        assertThat(copy).isEqualTo(BackendVolume.filesystem(PVC2, ByteSize.ofMiB(16), Path.of("/tank/nfs/pvc-2")));
        assertThat(zfs.mounted("tank/nfs/pvc-2")).isTrue();
        List<List<String>> made = zfs.argvs().subList(before, zfs.argvs().size());
        assertThat(made).filteredOn(a -> !a.get(1).equals("get")).containsExactly(
                List.of("zfs", "send", "-nP", "tank/nfs/pvc-1@snapshot-1"),
                List.of("zfs", "send", "tank/nfs/pvc-1@snapshot-1"),
                List.of("zfs", "recv", "-s", "-u", "-o", "refquota=16777216", "-o", "snapdir=hidden", "-o", "sharenfs=off", "-o", "canmount=noauto",
                        "-o", MANAGED + "=" + InstallationId.EMBEDDED.value(), "-o", ZfsSnapshots.CONTENT_PROPERTY
                                + "=snapshot/snapshot-1/independent/16777216", "tank/nfs/pvc-2_receiving"),
                List.of("zfs", "destroy", "tank/nfs/pvc-2_receiving@snapshot-1"),
                List.of("zfs", "rename", "-u", "tank/nfs/pvc-2_receiving", "tank/nfs/pvc-2"),
                List.of("zfs", "set", "canmount=on", "tank/nfs/pvc-2"),
                List.of("mkdir", "-p", "/tank/nfs/pvc-2"),
                List.of("mount", "-t", "zfs", "-o", "zfsutil", "tank/nfs/pvc-2", "/tank/nfs/pvc-2"));
        assertThat(zfs.properties("tank/nfs/pvc-2")).containsEntry("canmount", "on");
        assertThat(zfs.shareCommits()).isEmpty();
        assertThat(backend.find(PVC2)).contains(copy);
    }

    /** A linked clone is made canmount=noauto (zfs clone mounts and shares a canmount=on one), then mounted as a copy. */
    @Test
    void aCloneIsMadeUnmountedAndMountedWithMountZfsBeforeItIsReturned() {
        FakeZfs zfs = zfs();
        ZfsDatasetBackend backend = backend(zfs);
        backend.create(PVC1, ByteSize.ofMiB(8), Map.of());
        backend.snapshot(SNAP, PVC1);
        int before = zfs.argvs().size();

        BackendVolume clone = backend.create(PVC2, ByteSize.ofMiB(8), Map.of(), NonZeroingPool.REFUSE,
                new VolumeSource.FromSnapshot(SNAP, Mode.LINKED));

        assertThat(clone).isEqualTo(BackendVolume.filesystem(PVC2, ByteSize.ofMiB(8), Path.of("/tank/nfs/pvc-2")));
        assertThat(zfs.argvs().subList(before, zfs.argvs().size())).filteredOn(a -> !a.get(1).equals("get")).containsExactly(
                List.of("zfs", "clone", "-o", "refquota=8388608", "-o", "snapdir=hidden", "-o", "sharenfs=off", "-o", "canmount=noauto",
                        "-o", MANAGED + "=" + InstallationId.EMBEDDED.value(), "-o", ZfsSnapshots.CONTENT_PROPERTY
                                + "=snapshot/snapshot-1/linked/8388608", "tank/nfs/pvc-1@snapshot-1", "tank/nfs/pvc-2"),
                List.of("zfs", "set", "canmount=on", "tank/nfs/pvc-2"),
                List.of("mkdir", "-p", "/tank/nfs/pvc-2"),
                List.of("mount", "-t", "zfs", "-o", "zfsutil", "tank/nfs/pvc-2", "/tank/nfs/pvc-2"));
        assertThat(zfs.mounted("tank/nfs/pvc-2")).isTrue();
        assertThat(zfs.shareCommits()).isEmpty();
    }

    /** A crash between the clone and its mount: the retry sets canmount=on and mounts it, and nothing else. */
    @Test
    void aRetryMountsACloneACrashLeftUnmounted() {
        FakeZfs zfs = zfs();
        ZfsDatasetBackend backend = backend(zfs);
        backend.create(PVC1, ByteSize.ofMiB(8), Map.of());
        backend.snapshot(SNAP, PVC1);
        VolumeSource source = new VolumeSource.FromSnapshot(SNAP, Mode.LINKED);
        backend.create(PVC2, ByteSize.ofMiB(8), Map.of(), NonZeroingPool.REFUSE, source);
        zfs.run(new Command(List.of("umount", "/tank/nfs/pvc-2"), Duration.ofSeconds(5)));
        zfs.run(new Command(List.of("zfs", "set", "canmount=noauto", "tank/nfs/pvc-2"), Duration.ofSeconds(5)));

        BackendVolume again = backend.create(PVC2, ByteSize.ofMiB(8), Map.of(), NonZeroingPool.REFUSE, source);

        assertThat(again.mountPath()).isEqualTo(Path.of("/tank/nfs/pvc-2"));
        assertThat(zfs.mounted("tank/nfs/pvc-2")).isTrue();
        assertThat(zfs.properties("tank/nfs/pvc-2")).containsEntry("canmount", "on");
        assertThat(zfs.shareCommits()).isEmpty();
    }

    /**
     * Issue #18 item 6 on main's fact 11: every restore, clone and delete of datasets (linked and
     * independent, of a snapshot and of a volume, a delete that hides a dataset and the reaping of it)
     * runs no command that has libzfs commit its shares (exportfs -ra, which wipes the agent's exports).
     */
    @Test
    void restoresClonesAndDeletesOfDatasetsRunNoCommandThatCommitsShares() {
        FakeZfs zfs = zfs();
        ZfsDatasetBackend backend = backend(zfs);
        backend.create(PVC1, ByteSize.ofMiB(8), Map.of());
        backend.snapshot(SNAP, PVC1);
        List<VolumeId> made = List.of(PVC2, VolumeId.of("pvc-3"), VolumeId.of("pvc-4"), VolumeId.of("pvc-5"));
        backend.create(made.get(0), ByteSize.ofMiB(8), Map.of(), NonZeroingPool.REFUSE, new VolumeSource.FromSnapshot(SNAP, Mode.LINKED));
        backend.create(made.get(1), ByteSize.ofMiB(16), Map.of(), NonZeroingPool.REFUSE,
                new VolumeSource.FromSnapshot(SNAP, Mode.INDEPENDENT));
        backend.create(made.get(2), ByteSize.ofMiB(8), Map.of(), NonZeroingPool.REFUSE, new VolumeSource.FromVolume(PVC1, Mode.LINKED));
        backend.create(made.get(3), ByteSize.ofMiB(8), Map.of(), NonZeroingPool.REFUSE,
                new VolumeSource.FromVolume(PVC1, Mode.INDEPENDENT));
        for (VolumeId id : made) {
            assertThat(zfs.mounted("tank/nfs/" + id.value())).as(id.value()).isTrue();
            assertThat(backend.find(id)).as(id.value()).isPresent();
        }

        backend.delete(PVC1); // has a snapshot and a clone's passage: hidden, unmounted
        String hidden = zfs.below("tank/nfs").stream().filter(n -> n.contains(ZfsSnapshots.HIDDEN) && !n.contains("@")).findFirst()
                .orElseThrow();
        assertThat(zfs.mounted(hidden)).isFalse();
        backend.deleteSnapshot(SNAP);
        made.forEach(backend::delete);

        assertThat(zfs.below("tank/nfs")).containsExactly("tank/nfs");
        assertThat(zfs.shareCommits()).isEmpty();
        assertThat(zfs.argvs()).noneMatch(a -> a.size() > 1 && a.get(0).equals("zfs")
                && List.of("mount", "umount", "unmount", "share").contains(a.get(1)));
    }

    /** A boot's zfs mount -a mounts a hidden dataset too: it is unmounted with umount before it is destroyed. */
    @Test
    void aHiddenDatasetMountedAgainIsUnmountedBeforeItIsReaped() {
        FakeZfs zfs = zfs();
        ZfsDatasetBackend backend = backend(zfs);
        backend.create(PVC1, ByteSize.ofMiB(8), Map.of());
        backend.snapshot(SNAP, PVC1);
        backend.delete(PVC1);
        String hidden = zfs.below("tank/nfs").stream().filter(n -> n.contains(ZfsSnapshots.HIDDEN) && !n.contains("@")).findFirst()
                .orElseThrow();
        zfs.run(new Command(List.of("mount", "-t", "zfs", "-o", "zfsutil", hidden, "/" + hidden), Duration.ofSeconds(5)));
        int before = zfs.argvs().size();

        backend.deleteSnapshot(SNAP);

        assertThat(zfs.below("tank/nfs")).containsExactly("tank/nfs");
        assertThat(zfs.argvs().subList(before, zfs.argvs().size())).filteredOn(a -> !a.get(1).equals("get"))
                .containsSubsequence(List.of("umount", "/" + hidden), List.of("zfs", "destroy", hidden));
        assertThat(zfs.shareCommits()).isEmpty();
    }

    /**
     * The fake's share-commit record catches what it must: zfs's own mounting clone, rename and destroy (a receive
     * is always {@code recv -s -u}, which mounts nothing: the fake refuses any other).
     */
    @Test
    void theFakeRecordsEveryCommandThatWouldCommitShares() {
        FakeZfs zfs = zfs();
        ZfsDatasetBackend backend = backend(zfs);
        backend.create(PVC1, ByteSize.ofMiB(8), Map.of());
        backend.snapshot(SNAP, PVC1);
        Duration deadline = Duration.ofSeconds(5);
        List<String> clone = List.of("zfs", "clone", "tank/nfs/pvc-1@snapshot-1", "tank/nfs/c");
        List<String> rename = List.of("zfs", "rename", "tank/nfs/c", "tank/nfs/d");
        List<String> destroy = List.of("zfs", "destroy", "tank/nfs/d");

        zfs.run(new Command(clone, deadline));
        zfs.run(new Command(rename, deadline));
        zfs.run(new Command(destroy, deadline));

        assertThat(zfs.shareCommits()).containsExactly(clone, rename, destroy);
    }

    @Test
    void aDatasetWithADatasetBelowItThatItDidNotMakeIsRefusedNotHidden() {
        FakeZfs zfs = zfs();
        ZfsDatasetBackend backend = backend(zfs);
        backend.create(PVC1, ByteSize.ofMiB(8), Map.of());
        zfs.withFilesystem("tank/nfs/pvc-1/someone");

        assertFails(() -> backend.delete(PVC1), Kind.FAILED, "datasets below it this driver did not make: [tank/nfs/pvc-1/someone]");
        assertThat(zfs.below("tank/nfs")).containsExactly("tank/nfs", "tank/nfs/pvc-1", "tank/nfs/pvc-1/someone");
    }

    @Test
    void aHiddenDatasetIsNeitherListedNorFoundAndGoesWithItsLastSnapshot() {
        FakeZfs zfs = zfs();
        ZfsDatasetBackend backend = backend(zfs);
        backend.create(PVC1, ByteSize.ofMiB(8), Map.of());
        backend.snapshot(SNAP, PVC1);

        backend.delete(PVC1);

        assertThat(zfs.below("tank/nfs")).hasSize(3).anyMatch(n -> n.contains(ZfsSnapshots.HIDDEN) && n.endsWith("@snapshot-1"));
        assertThat(backend.list()).isEmpty();
        assertThat(backend.findAll(List.of(PVC1))).isEmpty();
        assertThat(backend.find(PVC1)).isEmpty();
        assertThat(backend.findSnapshot(SNAP)).hasValueSatisfying(s -> assertThat(s.size()).isEqualTo(ByteSize.ofMiB(8)));
        backend.deleteSnapshot(SNAP);
        assertThat(zfs.below("tank/nfs")).containsExactly("tank/nfs");
    }

    @Test
    void aSnapshotOfADatasetDeeperBelowIsNotThisBackendsEvenWithItsMark() {
        FakeZfs zfs = zfs().withFilesystem("tank/nfs/blocks");
        ZfsVolumeBackend zvols = new ZfsVolumeBackend(new BackendConfig("zfs", BackendKind.BACKEND_KIND_ZFS_ZVOL, "tank", "nfs/blocks"),
                zfs, root.resolve("dev"), root.resolve("sys"), Path.of("/lib/udev/zvol_id"), Duration.ofSeconds(5), Duration.ofSeconds(5));
        zvols.create(PVC1, ByteSize.ofMiB(8), Map.of());
        zvols.snapshot(SNAP, PVC1);

        assertThat(backend(zfs).listSnapshots()).isEmpty();
        assertThat(backend(zfs).findSnapshot(SNAP)).isEmpty();
        assertThat(zvols.listSnapshots()).extracting(BackendSnapshot::id).containsExactly(SNAP);
    }

    @Test
    void aHiddenDatasetFreedWhileTheAgentWasDownIsReapedAtStartUp() {
        FakeZfs zfs = zfs();
        ZfsDatasetBackend backend = backend(zfs);
        backend.create(PVC1, ByteSize.ofMiB(8), Map.of());
        backend.snapshot(SNAP, PVC1);
        backend.delete(PVC1);
        String snapshot = zfs.below("tank/nfs").stream().filter(n -> n.endsWith("@snapshot-1")).findFirst().orElseThrow();
        zfs.run(new Command(List.of("zfs", "destroy", snapshot), Duration.ofSeconds(5))); // by hand, say, while the agent was down

        backend(zfs).reapHidden();

        assertThat(zfs.below("tank/nfs")).containsExactly("tank/nfs");
    }
}
