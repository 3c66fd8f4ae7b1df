package pillar.agent.backend.zfs;

import static org.assertj.core.api.Assertions.assertThat;
import static pillar.agent.backend.BackendAssertions.assertFails;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import pillar.agent.backend.BackendException.Kind;
import pillar.agent.backend.BackendVolume;
import pillar.agent.backend.VolumeBackend.Capacity;
import pillar.agent.backend.VolumeBackend;
import pillar.agent.config.BackendConfig;
import pillar.agent.state.InstallationId;
import pillar.api.agent.v1.BackendKind;
import pillar.api.value.ByteSize;
import pillar.api.value.VolumeId;

/**
 * ZfsVolumeBackend through the ProcessRunner port against the stateful fake zfs: the contract of
 * {@link VolumeBackend}, the exact argument lists, refusing a shrink that zfs would do silently,
 * waiting for the zvol's device with and without udev, and space with refreservations.
 */
class ZfsVolumeBackendTest {
    private static final VolumeId PVC1 = VolumeId.of("pvc-1");
    private static final VolumeId PVC2 = VolumeId.of("pvc-2");
    private static final String ZVOL_ID = "/lib/udev/zvol_id";
    private static final BackendConfig K8S = new BackendConfig("zfs", BackendKind.BACKEND_KIND_ZFS_ZVOL, "tank", "k8s");

    @TempDir
    Path root;

    private Path dev;
    private Path sys;

    @BeforeEach
    void roots() {
        dev = root.resolve("dev");
        sys = root.resolve("sys");
    }

    private FakeZfs zfs(FakeZfs.Devices devices) {
        return new FakeZfs("tank", ByteSize.ofGiB(10).bytes(), dev, sys, ZVOL_ID, devices).withFilesystem("tank/k8s");
    }

    private ZfsVolumeBackend backend(FakeZfs zfs, BackendConfig config, Duration deviceTimeout) {
        return new ZfsVolumeBackend(config, zfs, dev, sys, Path.of(ZVOL_ID), Duration.ofSeconds(5), deviceTimeout);
    }

    private ZfsVolumeBackend backend(FakeZfs zfs) {
        return backend(zfs, K8S, Duration.ofSeconds(5));
    }

    @Test
    void createRoundsUpToTheBlockSizeMarksTheZvolAndReturnsTheUdevLink() {
        FakeZfs zfs = zfs(FakeZfs.Devices.UDEV);

        BackendVolume volume = backend(zfs).create(PVC1, ByteSize.of(1_000_000), Map.of());

        assertThat(volume).isEqualTo(new BackendVolume(PVC1, ByteSize.of(62 * 16384), dev.resolve("zvol/tank/k8s/pvc-1")));
        assertThat(volume.device()).exists();
        // one command: zfs create judges existence and space itself, and takes the rounded volsize as it is
        assertThat(zfs.argvs()).containsExactly(
                List.of("zfs", "create", "-V", "1015808", "-b", "16384", "-o", "volmode=dev", "-o", "io.pillar-csi:managed=embedded",
                        "tank/k8s/pvc-1"));
        assertThat(zfs.properties("tank/k8s/pvc-1")).containsEntry("io.pillar-csi:managed", "embedded").containsEntry("volmode", "dev");
    }

    @Test
    void withoutUdevTheDeviceIsFoundThroughZvolIdAskingTheSizeMatchFirst() {
        FakeZfs zfs = zfs(FakeZfs.Devices.NO_UDEV);
        zfs.addForeignZvol("tank/other", ByteSize.ofMiB(8).bytes(), 8192); // takes zd0

        BackendVolume volume = backend(zfs).create(PVC1, ByteSize.ofMiB(64), Map.of());

        assertThat(volume.device()).isEqualTo(dev.resolve("zd16"));
        assertThat(dev.resolve("zvol")).doesNotExist();
        assertThat(zfs.argvs()).filteredOn(argv -> argv.get(0).equals(ZVOL_ID)).containsExactly(List.of(ZVOL_ID, dev.resolve("zd16").toString()));
    }

    @Test
    void zdNumbersAreReusedAndTheMappingFollowsThem() {
        FakeZfs zfs = zfs(FakeZfs.Devices.NO_UDEV);
        ZfsVolumeBackend backend = backend(zfs);
        backend.create(PVC1, ByteSize.ofMiB(64), Map.of());
        backend.create(PVC2, ByteSize.ofMiB(64), Map.of());
        backend.delete(PVC1);

        VolumeId pvc3 = VolumeId.of("pvc-3");
        assertThat(backend.create(pvc3, ByteSize.ofMiB(64), Map.of()).device()).isEqualTo(dev.resolve("zd0"));
        assertThat(backend.find(PVC2).orElseThrow().device()).isEqualTo(dev.resolve("zd16"));
        assertThat(backend.find(pvc3).orElseThrow().device()).isEqualTo(dev.resolve("zd0"));
        assertThat(backend.list()).extracting(BackendVolume::device).containsExactlyInAnyOrder(dev.resolve("zd0"), dev.resolve("zd16"));
    }

    @Test
    void withoutUdevEachDeviceIsAskedOnceInItsLifeNotOncePerLookup() {
        FakeZfs zfs = zfs(FakeZfs.Devices.NO_UDEV);
        ZfsVolumeBackend backend = backend(zfs);
        int volumes = 20;
        List<VolumeId> ids = IntStream.range(0, volumes).mapToObj(i -> VolumeId.of("pvc-" + i)).toList();

        ids.forEach(id -> backend.create(id, ByteSize.ofMiB(64), Map.of())); // one size: every device a candidate
        ids.forEach(id -> assertThat(backend.find(id)).isPresent());
        int asked = zvolIdCalls(zfs);
        backend.list();

        // each create asks only its new device, each find confirms the one it hands out: 2 per volume
        // (asking every candidate on every lookup made it 352 here)
        assertThat(asked).isEqualTo(2 * volumes);
        assertThat(zvolIdCalls(zfs)).as("a listing asks no device seen before").isEqualTo(asked);
        assertThat(backend.list()).extracting(BackendVolume::device).doesNotHaveDuplicates().allMatch(Files::exists);
    }

    private static int zvolIdCalls(FakeZfs zfs) {
        return (int) zfs.argvs().stream().filter(argv -> argv.get(0).equals(ZVOL_ID)).count();
    }

    @Test
    void createWaitsForADeviceThatAppearsLate() {
        FakeZfs zfs = zfs(FakeZfs.Devices.NO_UDEV).withDeviceDelay(Duration.ofMillis(300));

        BackendVolume volume = backend(zfs).create(PVC1, ByteSize.ofMiB(64), Map.of());

        assertThat(volume.device()).isEqualTo(dev.resolve("zd0")).exists();
    }

    @Test
    void aDeviceThatNeverAppearsFailsAfterTheDeadlineAndTheRetryFindsTheZvol() {
        FakeZfs zfs = zfs(FakeZfs.Devices.NEVER);
        ZfsVolumeBackend backend = backend(zfs, K8S, Duration.ofMillis(300));

        assertFails(() -> backend.create(PVC1, ByteSize.ofMiB(64), Map.of()), Kind.FAILED, "did not appear within 300 ms");
        assertThat(zfs.exists("tank/k8s/pvc-1")).isTrue();
        assertFails(() -> backend.create(PVC1, ByteSize.ofMiB(64), Map.of()), Kind.FAILED, "did not appear");
        // the retry's zfs create is refused (it exists), and the zvol is adopted and waited for again
        assertThat(zfs.verbs()).containsExactly("zfs create", "zfs create", "zfs get");
    }

    @Test
    void sparseBlockSizeAndCompressionOptions() {
        FakeZfs zfs = zfs(FakeZfs.Devices.UDEV);

        BackendVolume volume = backend(zfs).create(PVC1, ByteSize.of(100_000),
                Map.of("sparse", "true", "volblocksize", "64K", "compression", "zstd"));

        assertThat(volume.size()).isEqualTo(ByteSize.of(128 * 1024));
        assertThat(zfs.argvs()).contains(List.of("zfs", "create", "-V", "131072", "-b", "65536", "-s", "-o", "volmode=dev",
                "-o", "io.pillar-csi:managed=embedded", "-o", "compression=zstd", "tank/k8s/pvc-1"));
    }

    @Test
    void createIsIdempotentAndAnotherSizeOrBlockSizeIsAConflict() {
        FakeZfs zfs = zfs(FakeZfs.Devices.UDEV);
        ZfsVolumeBackend backend = backend(zfs);
        BackendVolume first = backend.create(PVC1, ByteSize.ofMiB(64), Map.of("volblocksize", "8192"));

        assertThat(backend.create(PVC1, ByteSize.ofMiB(64), Map.of("volblocksize", "8K"))).isEqualTo(first);
        assertFails(() -> backend.create(PVC1, ByteSize.ofMiB(128), Map.of("volblocksize", "8K")), Kind.CONFLICT, "already exists with 64MiB");
        assertFails(() -> backend.create(PVC1, ByteSize.ofMiB(64), Map.of()), Kind.CONFLICT, "volblocksize 8192, not the 16384");
        // each repeat: zfs create refuses the existing dataset, then one zfs get reads it
        assertThat(zfs.verbs()).containsExactly("zfs create", "zfs create", "zfs get", "zfs create", "zfs get", "zfs create", "zfs get");
        assertThat(zfs.volsize("tank/k8s/pvc-1")).isEqualTo(ByteSize.ofMiB(64).bytes());
    }

    @Test
    void aDatasetWithoutOurMarkIsNeverAdoptedGrownOrDestroyed() {
        FakeZfs zfs = zfs(FakeZfs.Devices.UDEV).withFilesystem("tank/k8s/pvc-2");
        zfs.addForeignZvol("tank/k8s/pvc-1", ByteSize.ofMiB(64).bytes(), 16384);
        ZfsVolumeBackend backend = backend(zfs);

        assertFails(() -> backend.create(PVC1, ByteSize.ofMiB(64), Map.of()), Kind.CONFLICT,
                "not a zvol of this installation (it has no io.pillar-csi:managed set locally (this installation's: embedded))");
        assertFails(() -> backend.create(PVC2, ByteSize.ofMiB(64), Map.of()), Kind.CONFLICT, "not a zvol of this installation");
        assertThat(backend.find(PVC1)).isEmpty();
        assertFails(() -> backend.expand(PVC1, ByteSize.ofMiB(128)), Kind.NOT_FOUND, "pvc-1");
        assertFails(() -> backend.delete(PVC1), Kind.FAILED, "refusing to destroy tank/k8s/pvc-1");
        assertFails(() -> backend.delete(PVC2), Kind.FAILED, "refusing to destroy tank/k8s/pvc-2");
        assertThat(zfs.verbs()).containsOnly("zfs create", "zfs get"); // each zfs create refused the existing dataset
        assertThat(zfs.volsize("tank/k8s/pvc-1")).isEqualTo(ByteSize.ofMiB(64).bytes());
    }

    @Test
    void anInheritedMarkIsNoOwnership() {
        // someone set the mark on the parent: every zvol below inherits it, the foreign one too
        FakeZfs zfs = zfs(FakeZfs.Devices.UDEV).withProperty("tank/k8s", "io.pillar-csi:managed", "embedded");
        zfs.addForeignZvol("tank/k8s/pvc-1", ByteSize.ofMiB(64).bytes(), 16384);
        ZfsVolumeBackend backend = backend(zfs);

        assertFails(() -> backend.create(PVC1, ByteSize.ofMiB(64), Map.of()), Kind.CONFLICT, "it has no io.pillar-csi:managed set locally");
        assertThat(backend.find(PVC1)).isEmpty();
        assertThat(backend.list()).isEmpty();
        assertThat(backend.owner(PVC1)).isEmpty();
        assertFails(() -> backend.expand(PVC1, ByteSize.ofMiB(128)), Kind.NOT_FOUND, "pvc-1");
        assertFails(() -> backend.delete(PVC1), Kind.FAILED, "refusing to destroy tank/k8s/pvc-1");
        assertThat(zfs.exists("tank/k8s/pvc-1")).isTrue();
        // while one it made carries the mark locally, whatever the parent says
        backend.create(PVC2, ByteSize.ofMiB(64), Map.of());
        assertThat(backend.list()).extracting(BackendVolume::id).containsExactly(PVC2);
    }

    @Test
    void twoInstallationsSharingAPoolNeverAdoptGrowOrDestroyEachOthersZvols() {
        FakeZfs zfs = zfs(FakeZfs.Devices.UDEV);
        ZfsVolumeBackend ours = backend(zfs);
        ZfsVolumeBackend theirs = new ZfsVolumeBackend(K8S, zfs, dev, sys, Path.of(ZVOL_ID), Duration.ofSeconds(5), Duration.ofSeconds(5),
                InstallationId.of("staging.pillar"));
        theirs.create(PVC1, ByteSize.ofMiB(64), Map.of());

        assertFails(() -> ours.create(PVC1, ByteSize.ofMiB(64), Map.of()), Kind.CONFLICT,
                "its io.pillar-csi:managed is staging.pillar (this installation's: embedded)");
        assertThat(ours.find(PVC1)).isEmpty();
        assertThat(ours.list()).isEmpty();
        assertFails(() -> ours.expand(PVC1, ByteSize.ofMiB(128)), Kind.NOT_FOUND, "pvc-1");
        assertFails(() -> ours.delete(PVC1), Kind.FAILED, "refusing to destroy tank/k8s/pvc-1");
        assertThat(zfs.volsize("tank/k8s/pvc-1")).isEqualTo(ByteSize.ofMiB(64).bytes());
        assertThat(ours.owner(PVC1)).contains(InstallationId.of("staging.pillar"));
        assertThat(theirs.list()).extracting(BackendVolume::id).containsExactly(PVC1);
    }

    @Test
    void expandGrowsToTheZvolsOwnBlockSizeAndTheSameSizeIsANoOp() {
        FakeZfs zfs = zfs(FakeZfs.Devices.UDEV);
        ZfsVolumeBackend backend = backend(zfs);
        backend.create(PVC1, ByteSize.ofGiB(1), Map.of("volblocksize", "8K"));

        int before = zfs.argvs().size();
        ByteSize grown = backend.expand(PVC1, ByteSize.of(ByteSize.GIB + 1));
        assertThat(grown).isEqualTo(ByteSize.of(ByteSize.GIB + 8192));
        assertThat(zfs.volsize("tank/k8s/pvc-1")).isEqualTo(ByteSize.GIB + 8192);
        // one zfs get (ownership, size, block size), one zfs set, nothing read back
        assertThat(zfs.argvs().subList(before, zfs.argvs().size()))
                .containsExactly(get("tank/k8s/pvc-1"), List.of("zfs", "set", "volsize=" + (ByteSize.GIB + 8192), "tank/k8s/pvc-1"));

        assertThat(backend.expand(PVC1, ByteSize.of(ByteSize.GIB + 8192))).isEqualTo(grown);
        assertThat(backend.expand(PVC1, ByteSize.of(ByteSize.GIB + 100))).isEqualTo(grown);
        assertThat(zfs.verbs()).filteredOn("zfs set"::equals).hasSize(1);
    }

    @Test
    void shrinkIsRefusedBecauseZfsWouldDoItSilently() {
        FakeZfs zfs = zfs(FakeZfs.Devices.UDEV);
        ZfsVolumeBackend backend = backend(zfs);
        backend.create(PVC1, ByteSize.ofGiB(2), Map.of());

        assertFails(() -> backend.expand(PVC1, ByteSize.ofGiB(1)), Kind.OUT_OF_RANGE, "never shrink");
        assertThat(zfs.verbs()).doesNotContain("zfs set");
        assertThat(zfs.volsize("tank/k8s/pvc-1")).isEqualTo(ByteSize.ofGiB(2).bytes());
    }

    @Test
    void expandOfAMissingVolumeIsNotFoundAndPastTheSpaceIsNoSpace() {
        FakeZfs zfs = zfs(FakeZfs.Devices.UDEV);
        ZfsVolumeBackend backend = backend(zfs);
        assertFails(() -> backend.expand(PVC1, ByteSize.ofGiB(1)), Kind.NOT_FOUND, "below tank/k8s");

        backend.create(PVC1, ByteSize.ofGiB(1), Map.of());
        assertFails(() -> backend.expand(PVC1, ByteSize.ofGiB(10)), Kind.NO_SPACE, "size is greater than available space");
        assertThat(zfs.volsize("tank/k8s/pvc-1")).isEqualTo(ByteSize.ofGiB(1).bytes());
    }

    @Test
    void deleteDestroysAndRemovesTheDeviceAndAMissingVolumeIsSuccess() {
        FakeZfs zfs = zfs(FakeZfs.Devices.NO_UDEV);
        ZfsVolumeBackend backend = backend(zfs);
        Path device = backend.create(PVC1, ByteSize.ofMiB(64), Map.of()).device();

        backend.delete(PVC1);
        assertThat(zfs.exists("tank/k8s/pvc-1")).isFalse();
        assertThat(device).doesNotExist();
        assertThat(zfs.argvs()).contains(List.of("zfs", "destroy", "tank/k8s/pvc-1"));

        int before = zfs.argvs().size();
        backend.delete(PVC1);
        // the lookup, the look for a copy's partial receive, the pool's space
        assertThat(zfs.verbs().subList(before, zfs.verbs().size())).containsExactly("zfs get", "zfs get", "zfs get");
    }

    @Test
    void deleteOfAZvolThatStaysBusySaysToUnexportFirstAfterTryingForTheDeviceTimeout() {
        FakeZfs zfs = zfs(FakeZfs.Devices.UDEV);
        ZfsVolumeBackend backend = backend(zfs, K8S, Duration.ofMillis(500));
        backend.create(PVC1, ByteSize.ofMiB(64), Map.of());
        zfs.markBusy("tank/k8s/pvc-1");

        assertFails(() -> backend.delete(PVC1), Kind.FAILED, "unexport it first");
        assertThat(zfs.exists("tank/k8s/pvc-1")).isTrue();
        assertThat(zfs.verbs().stream().filter("zfs destroy"::equals).count()).as("destroy tried again while busy")
                .isGreaterThan(1);
    }

    @Test
    void deleteOfAZvolHeldForAMomentAfterItsUnexportSucceeds() {
        FakeZfs zfs = zfs(FakeZfs.Devices.UDEV);
        ZfsVolumeBackend backend = backend(zfs);
        backend.create(PVC1, ByteSize.ofMiB(64), Map.of());
        zfs.markBusy("tank/k8s/pvc-1", 2);

        backend.delete(PVC1);
        assertThat(zfs.exists("tank/k8s/pvc-1")).isFalse();
        assertThat(zfs.verbs().stream().filter("zfs destroy"::equals).count()).isEqualTo(3);
    }

    @Test
    void aDeleteWaitsForTheAgentsOwnProbeOfTheZvolInsteadOfFindingItBusy() throws Exception {
        FakeZfs zfs = zfs(FakeZfs.Devices.NO_UDEV);
        ZfsVolumeBackend backend = backend(zfs);
        backend.create(PVC1, ByteSize.ofMiB(64), Map.of());
        // a find confirms the device it hands out with zvol_id (and a lookup that misses asks every zdN
        // again now and then): each keeps its zvol open for the call, and a destroy meanwhile would be
        // refused "dataset is busy"
        CountDownLatch opened = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        zfs.holdProbes(opened, release);
        ExecutorService threads = Executors.newFixedThreadPool(2);
        Future<Optional<BackendVolume>> list = threads.submit(() -> backend.find(PVC1));
        assertThat(opened.await(5, TimeUnit.SECONDS)).as("the find's zvol_id has pvc-1's zd0 open").isTrue();

        Future<?> delete = threads.submit(() -> backend.delete(PVC1));
        Thread.sleep(300);
        release.countDown();
        zfs.holdProbes(new CountDownLatch(0), null);
        delete.get(10, TimeUnit.SECONDS);
        list.get(10, TimeUnit.SECONDS);
        threads.shutdown();

        assertThat(zfs.destroysRefusedWhileProbed()).as("destroys tried while the agent's own zvol_id held the zvol").isZero();
        assertThat(zfs.exists("tank/k8s/pvc-1")).isFalse();
    }

    @Test
    void aMissingParentDatasetIsUnavailableEvenForDelete() {
        FakeZfs zfs = new FakeZfs("tank", ByteSize.ofGiB(10).bytes(), dev, sys, ZVOL_ID, FakeZfs.Devices.UDEV); // no tank/k8s
        ZfsVolumeBackend backend = backend(zfs);

        assertFails(() -> backend.create(PVC1, ByteSize.ofMiB(64), Map.of()), Kind.UNAVAILABLE, "parent does not exist");
        assertFails(() -> backend.delete(PVC1), Kind.UNAVAILABLE, "is the pool imported");
        assertFails(backend::list, Kind.UNAVAILABLE, "tank/k8s");
        assertFails(backend::capacity, Kind.UNAVAILABLE, "tank/k8s");
        assertThat(zfs.verbs()).doesNotContain("zfs destroy");
        assertThat(zfs.exists("tank/k8s/pvc-1")).isFalse();
    }

    @Test
    void listShowsOnlyOurZvolsDirectlyBelowTheParent() {
        FakeZfs zfs = zfs(FakeZfs.Devices.UDEV).withFilesystem("tank/k8s/nested");
        ZfsVolumeBackend backend = backend(zfs);
        backend.create(PVC1, ByteSize.ofMiB(64), Map.of());
        backend.create(PVC2, ByteSize.ofMiB(32), Map.of("sparse", "true"));
        zfs.addForeignZvol("tank/k8s/legacy", ByteSize.ofMiB(8).bytes(), 8192);
        backend(zfs, new BackendConfig("nested", BackendKind.BACKEND_KIND_ZFS_ZVOL, "tank", "k8s/nested"), Duration.ofSeconds(1))
                .create(VolumeId.of("pvc-9"), ByteSize.ofMiB(8), Map.of());

        assertThat(backend.list()).containsExactly(
                new BackendVolume(PVC1, ByteSize.ofMiB(64), dev.resolve("zvol/tank/k8s/pvc-1")),
                new BackendVolume(PVC2, ByteSize.ofMiB(32), dev.resolve("zvol/tank/k8s/pvc-2")));
        assertThat(zfs.argvs()).contains(List.of("zfs", "get", "-Hp", "-r", "-d", "1", "-t", "volume",
                "-o", "name,property,value,source", "volsize,io.pillar-csi:managed", "tank/k8s"));
    }

    @Test
    void capacityCountsTheRefreservationOfNonSparseZvols() {
        FakeZfs zfs = zfs(FakeZfs.Devices.UDEV);
        ZfsVolumeBackend backend = backend(zfs);
        backend.create(PVC1, ByteSize.ofMiB(512), Map.of("volblocksize", "8K"));
        backend.create(PVC2, ByteSize.ofGiB(100), Map.of("sparse", "true"));

        assertThat(backend.capacity()).isEqualTo(new Capacity(ByteSize.ofGiB(10), ByteSize.of(ByteSize.ofGiB(10).bytes() - 555_745_280L)));
    }

    @Test
    void zfsJudgesTheSpaceAndARefusalBeyondTheWholeParentIsOutOfRange() {
        FakeZfs zfs = zfs(FakeZfs.Devices.UDEV);
        ZfsVolumeBackend backend = backend(zfs);

        assertFails(() -> backend.create(PVC1, ByteSize.ofGiB(11), Map.of()), Kind.OUT_OF_RANGE, "larger than tank/k8s");
        backend.create(PVC1, ByteSize.ofGiB(6), Map.of());
        assertFails(() -> backend.create(PVC2, ByteSize.ofGiB(4), Map.of()), Kind.NO_SPACE, "available");
        assertThat(zfs.exists("tank/k8s/pvc-1")).isTrue();
        assertThat(zfs.exists("tank/k8s/pvc-2")).isFalse();

        // fits the available bytes, not with its metadata: zfs refuses
        long available = zfs.available();
        assertFails(() -> backend.create(PVC2, ByteSize.of(available - 16384), Map.of()), Kind.NO_SPACE, "out of space");
        assertThat(zfs.exists("tank/k8s/pvc-2")).isFalse();

        // sparse: overcommit is the operator's choice
        assertThat(backend.create(PVC2, ByteSize.ofGiB(100), Map.of("sparse", "true")).size()).isEqualTo(ByteSize.ofGiB(100));
    }

    @Test
    void zvolsDirectlyInThePoolWhenThereIsNoParentDataset() {
        FakeZfs zfs = zfs(FakeZfs.Devices.UDEV);
        ZfsVolumeBackend backend = backend(zfs, new BackendConfig("root", BackendKind.BACKEND_KIND_ZFS_ZVOL, "tank", ""), Duration.ofSeconds(1));

        assertThat(backend.create(PVC1, ByteSize.ofMiB(8), Map.of()).device()).isEqualTo(dev.resolve("zvol/tank/pvc-1"));
        assertThat(backend.list()).extracting(BackendVolume::id).containsExactly(PVC1);
    }

    @Test
    void aDatasetNameLongerThanZfsAllowsIsRefusedBeforeAnyCommand() {
        FakeZfs zfs = zfs(FakeZfs.Devices.UDEV);
        String parent = "a".repeat(127) + "/" + "b".repeat(100);
        ZfsVolumeBackend backend = backend(zfs, new BackendConfig("long", BackendKind.BACKEND_KIND_ZFS_ZVOL, "tank", parent), Duration.ofSeconds(1));

        assertFails(() -> backend.create(VolumeId.of("v".repeat(63)), ByteSize.ofMiB(8), Map.of()), Kind.INVALID, "longer than ZFS's 255");
        assertThat(zfs.argvs()).isEmpty();
    }

    @Test
    void aSizeOfZeroIsRefusedBeforeAnyCommand() {
        FakeZfs zfs = zfs(FakeZfs.Devices.UDEV);
        assertFails(() -> backend(zfs).create(PVC1, ByteSize.of(0), Map.of()), Kind.OUT_OF_RANGE, "above 0 bytes");
        assertThat(zfs.argvs()).isEmpty();
    }

    @Test
    void hostileOptionsTouchNothing() {
        FakeZfs zfs = zfs(FakeZfs.Devices.UDEV);
        ZfsVolumeBackend backend = backend(zfs);
        List<Map<String, String>> hostile = List.of(
                Map.of("mountpoint", "/"), Map.of("-o", "mountpoint=/"), Map.of("volsize", "1"), Map.of("io.pillar-csi:managed", "true"),
                Map.of("refreservation", "none"), Map.of("compression ", "lz4"), Map.of("", ""),
                Map.of("compression", "lz4 -o mountpoint=/"), Map.of("compression", "lz4,dedup=on"), Map.of("compression", "-s"),
                Map.of("compression", "LZ4"), Map.of("compression", ""),
                Map.of("volblocksize", "3K"), Map.of("volblocksize", "256K"), Map.of("volblocksize", "1M"), Map.of("volblocksize", "-8K"),
                Map.of("volblocksize", "8K "), Map.of("volblocksize", "0x2000"), Map.of("volblocksize", "512"),
                Map.of("volblocksize", "99999999999999999999"),
                Map.of("sparse", "yes"), Map.of("sparse", "TRUE"), Map.of("sparse", ""), Map.of("sparse", "true\n-o"));
        for (Map<String, String> options : hostile) {
            assertFails(() -> backend.create(PVC1, ByteSize.ofMiB(8), options), Kind.INVALID, "");
        }
        assertThat(zfs.argvs()).isEmpty();
    }

    @Test
    void theDeviceFolderIsAParameterNotTheHosts() throws Exception {
        FakeZfs zfs = zfs(FakeZfs.Devices.UDEV);
        Path device = backend(zfs).create(PVC1, ByteSize.ofMiB(8), Map.of()).device();
        assertThat(device).startsWith(dev);
        assertThat(Files.readSymbolicLink(device)).isEqualTo(dev.resolve("zd0"));
    }

    private static List<String> get(String dataset) {
        return List.of("zfs", "get", "-Hp", "-o", "name,property,value,source", "volsize,volblocksize,io.pillar-csi:managed", dataset);
    }
}
