package pillar.agent.backend;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import pillar.agent.backend.lvm.FakeLvm;
import pillar.agent.backend.lvm.LvmBackend;
import pillar.agent.backend.zfs.FakeZfs;
import pillar.agent.backend.zfs.ZfsVolumeBackend;
import pillar.agent.config.BackendConfig;
import pillar.agent.state.InstallationId;
import pillar.api.agent.v1.BackendKind;
import pillar.api.value.ByteSize;
import pillar.api.value.VolumeId;
import pillar.runtime.exec.ProcessRunner;

/**
 * {@link VolumeBackend#findAll} on the stateful LVM and ZFS fakes: the volumes as {@link VolumeBackend#find}
 * returns them, the missing and the foreign left out, with one report of the backend for all of them
 * (a zvol's device without udev is still told by {@code zvol_id}, one per found volume, as find does).
 */
class FindAllTest {
    private static final VolumeId A = VolumeId.of("pvc-a");
    private static final VolumeId B = VolumeId.of("pvc-b");
    private static final VolumeId MISSING = VolumeId.of("pvc-missing");
    private static final VolumeId FOREIGN = VolumeId.of("pvc-foreign");
    private static final Duration TIMEOUT = Duration.ofSeconds(5);

    @TempDir
    Path root;

    private final List<List<String>> commands = new ArrayList<>();

    @Test
    void lvmReadsTheVolumeGroupOnceForAllOfThem() {
        FakeLvm lvm = new FakeLvm("vg0", ByteSize.GIB, root.resolve("dev")).withThinPool("pool0", 256 * ByteSize.MIB);
        LvmBackend ours = lvm(lvm, InstallationId.of("embedded"));
        ours.create(A, ByteSize.ofMiB(8), Map.of());
        ours.create(B, ByteSize.ofMiB(16), Map.of());
        lvm(lvm, InstallationId.of("staging.pillar")).create(FOREIGN, ByteSize.ofMiB(8), Map.of());

        assertFindsAsFindDoesWithOneCommand(ours, "lvs");
    }

    @Test
    void zfsReadsTheParentsZvolsOnceForAllOfThem() {
        FakeZfs zfs = new FakeZfs("tank", ByteSize.ofGiB(10).bytes(), root.resolve("dev"), root.resolve("sys"), "/lib/udev/zvol_id",
                FakeZfs.Devices.NO_UDEV).withFilesystem("tank/k8s");
        ZfsVolumeBackend ours = zfs(zfs, InstallationId.of("embedded"));
        ours.create(A, ByteSize.ofMiB(64), Map.of());
        ours.create(B, ByteSize.ofMiB(128), Map.of());
        zfs(zfs, InstallationId.of("staging.pillar")).create(FOREIGN, ByteSize.ofMiB(64), Map.of());

        assertFindsAsFindDoesWithOneCommand(ours, "zfs");
    }

    private void assertFindsAsFindDoesWithOneCommand(VolumeBackend backend, String program) {
        Map<VolumeId, BackendVolume> expected = Map.of(A, backend.find(A).orElseThrow(), B, backend.find(B).orElseThrow());
        assertThat(backend.find(FOREIGN)).isEmpty();
        commands.clear();

        Map<VolumeId, BackendVolume> found = backend.findAll(List.of(A, MISSING, FOREIGN, B));

        assertThat(found).isEqualTo(expected);
        assertThat(found.keySet()).containsExactly(A, B);
        assertThat(commands.stream().filter(argv -> argv.getFirst().equals(program))).as("one report for all four, " + commands)
                .hasSize(1);
    }

    private ProcessRunner recording(ProcessRunner runner) {
        return command -> {
            commands.add(command.argv());
            return runner.run(command);
        };
    }

    private LvmBackend lvm(FakeLvm lvm, InstallationId owner) {
        return LvmBackend.of(new BackendConfig("thin", BackendKind.BACKEND_KIND_LVM_THIN, "vg0", "pool0"), recording(lvm),
                root.resolve("dev"), root.resolve("sys"), TIMEOUT, Duration.ofSeconds(2), owner);
    }

    private ZfsVolumeBackend zfs(FakeZfs zfs, InstallationId owner) {
        return new ZfsVolumeBackend(new BackendConfig("zfs", BackendKind.BACKEND_KIND_ZFS_ZVOL, "tank", "k8s"), recording(zfs),
                root.resolve("dev"), root.resolve("sys"), Path.of("/lib/udev/zvol_id"), TIMEOUT, TIMEOUT, owner);
    }
}
