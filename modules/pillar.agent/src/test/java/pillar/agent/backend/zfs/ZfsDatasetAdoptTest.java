package pillar.agent.backend.zfs;

import static org.assertj.core.api.Assertions.assertThat;
import static pillar.agent.backend.BackendAssertions.assertFails;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import pillar.agent.backend.BackendException.Kind;
import pillar.agent.backend.BackendVolume;
import pillar.agent.backend.KernelExports;
import pillar.agent.config.BackendConfig;
import pillar.agent.state.InstallationId;
import pillar.api.agent.v1.BackendKind;
import pillar.api.value.ByteSize;
import pillar.api.value.VolumeId;
import pillar.runtime.exec.Command;

/**
 * {@link ZfsDatasetBackend#adopt} against the fake zfs: a filesystem made with a plain {@code zfs create} and a
 * refquota gets its mark in one {@code zfs set} (mounted first when it is not); one without a refquota is
 * OUT_OF_RANGE; one ZFS shares ({@code sharenfs}, its own or inherited) or nfsd exports is IN_USE; each refusal
 * leaves it unmarked.
 */
class ZfsDatasetAdoptTest {
    private static final VolumeId PVC1 = VolumeId.of("pvc-1");
    private static final String MANAGED = ZfsBackend.MANAGED_PROPERTY;
    private static final long SIZE = 8 * ByteSize.MIB;

    @TempDir
    Path root;

    private FakeZfs zfs;
    private ZfsDatasetBackend backend;

    @BeforeEach
    void poolWithAParent() {
        zfs = new FakeZfs("tank", ByteSize.ofGiB(10).bytes(), root.resolve("dev"), root.resolve("sys"), "/lib/udev/zvol_id",
                FakeZfs.Devices.UDEV).withFilesystem("tank/nfs");
        backend = new ZfsDatasetBackend(new BackendConfig("shared", BackendKind.BACKEND_KIND_ZFS_DATASET, "tank", "nfs"), zfs,
                Duration.ofSeconds(5), Duration.ofMillis(300), InstallationId.EMBEDDED);
    }

    /** As an operator runs it: {@code zfs create ARGS... tank/nfs/NAME}. */
    private void operatorCreates(String name, String... args) {
        List<String> argv = new ArrayList<>(List.of("zfs", "create"));
        argv.addAll(List.of(args));
        argv.add("tank/nfs/" + name);
        zfs.run(new Command(argv, Duration.ofSeconds(5)));
    }

    private List<List<String>> sets() {
        return zfs.argvs().stream().filter(a -> a.get(0).equals("zfs") && a.get(1).equals("set")).toList();
    }

    @Test
    void aPlainFilesystemWithARefquotaIsMarkedInOneZfsSet() {
        operatorCreates("pvc-1", "-o", "refquota=" + SIZE);

        BackendVolume volume = backend.adopt(PVC1, ByteSize.of(SIZE), KernelExports.NONE);

        assertThat(volume).isEqualTo(BackendVolume.filesystem(PVC1, ByteSize.of(SIZE), Path.of("/tank/nfs/pvc-1")));
        assertThat(sets()).containsExactly(List.of("zfs", "set", MANAGED + "=embedded", "tank/nfs/pvc-1"));
        assertThat(backend.find(PVC1)).contains(volume);
        assertThat(backend.adopt(PVC1, ByteSize.of(SIZE), KernelExports.NONE)).isEqualTo(volume);
        assertThat(sets()).hasSize(1);
    }

    @Test
    void anUnmountedFilesystemIsMountedAsCreateMountsOne() {
        operatorCreates("pvc-1", "-u", "-o", "refquota=" + SIZE);

        backend.adopt(PVC1, ByteSize.of(0), KernelExports.NONE);

        assertThat(zfs.mounted("tank/nfs/pvc-1")).isTrue();
        assertThat(zfs.properties("tank/nfs/pvc-1")).containsEntry(MANAGED, "embedded");
    }

    @Test
    void aFilesystemWithoutARefquotaHasNoSizeToServe() {
        operatorCreates("pvc-1");

        assertFails(() -> backend.adopt(PVC1, ByteSize.of(0), KernelExports.NONE), Kind.OUT_OF_RANGE, "zfs set refquota=<bytes> tank/nfs/pvc-1");
        assertThat(sets()).isEmpty();
    }

    @Test
    void aZvolIsNotFoundAndAnotherInstallationsFilesystemForeign() {
        zfs.run(new Command(List.of("zfs", "create", "-V", Long.toString(SIZE), "tank/nfs/pvc-2"), Duration.ofSeconds(5)));
        operatorCreates("pvc-1", "-o", "refquota=" + SIZE, "-o", MANAGED + "=staging");

        assertFails(() -> backend.adopt(VolumeId.of("pvc-2"), ByteSize.of(0), KernelExports.NONE), Kind.NOT_FOUND, "is a ZFS volume");
        assertFails(() -> backend.adopt(PVC1, ByteSize.of(0), KernelExports.NONE), Kind.FOREIGN, "another installation's");
        assertThat(zfs.properties("tank/nfs/pvc-1")).containsEntry(MANAGED, "staging");
        assertThat(sets()).isEmpty();
    }

    @Test
    void aFilesystemZfsSharesItselfOrInheritsASharingFromIsInUse() {
        operatorCreates("pvc-1", "-o", "refquota=" + SIZE, "-o", "sharenfs=on");
        assertFails(() -> backend.adopt(PVC1, ByteSize.of(0), KernelExports.NONE), Kind.IN_USE, "sharenfs=on, local");

        zfs.withProperty("tank/nfs", "sharenfs", "rw=@10.0.0.0/8");
        operatorCreates("pvc-2", "-o", "refquota=" + SIZE);
        assertFails(() -> backend.adopt(VolumeId.of("pvc-2"), ByteSize.of(0), KernelExports.NONE), Kind.IN_USE,
                "sharenfs=rw=@10.0.0.0/8, inherited from tank/nfs");
        assertThat(zfs.properties("tank/nfs/pvc-1")).doesNotContainKey(MANAGED);
        assertThat(zfs.properties("tank/nfs/pvc-2")).doesNotContainKey(MANAGED);
    }

    @Test
    void aFilesystemNfsdExportsIsInUseAndTheExportsAreAskedWithItsMountpoint() {
        operatorCreates("pvc-1", "-o", "refquota=" + SIZE);
        List<Path> asked = new ArrayList<>();
        KernelExports nfsd = new KernelExports() {
            @Override
            public Optional<String> device(Path device) {
                return Optional.empty();
            }

            @Override
            public Optional<String> directory(Path directory) {
                asked.add(directory);
                return Optional.of("nfsd exports /tank/nfs/pvc-1/www, below it");
            }
        };

        assertFails(() -> backend.adopt(PVC1, ByteSize.of(0), nfsd), Kind.IN_USE, "nfsd exports /tank/nfs/pvc-1/www");
        assertThat(asked).containsExactly(Path.of("/tank/nfs/pvc-1"));
        assertThat(zfs.properties("tank/nfs/pvc-1")).doesNotContainKey(MANAGED);
    }
}
