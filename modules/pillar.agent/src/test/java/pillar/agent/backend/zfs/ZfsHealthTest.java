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
import pillar.agent.backend.PoolHealth;
import pillar.agent.config.BackendConfig;
import pillar.api.agent.v1.BackendKind;
import pillar.api.value.ByteSize;
import pillar.api.value.VolumeId;

/**
 * What the ZFS backend reads for a volume's health, on the fake zfs (ZfsBackendKernelIT holds the same
 * against real ZFS): the pool's state from one {@code zpool list -H -o health}, UNAVAILABLE for a pool
 * that is not imported, and whether a zvol exists without waiting for its device.
 */
class ZfsHealthTest {
    private static final String ZVOL_ID = "/lib/udev/zvol_id";

    @TempDir
    Path root;

    private FakeZfs zfs() {
        return new FakeZfs("tank", ByteSize.ofGiB(10).bytes(), root.resolve("dev"), root.resolve("sys"), ZVOL_ID,
                FakeZfs.Devices.NEVER).withFilesystem("tank/k8s");
    }

    private ZfsVolumeBackend backend(FakeZfs zfs, String pool) {
        return new ZfsVolumeBackend(new BackendConfig("zfs", BackendKind.BACKEND_KIND_ZFS_ZVOL, pool, "k8s"), zfs,
                root.resolve("dev"), root.resolve("sys"), Path.of(ZVOL_ID), Duration.ofSeconds(5), Duration.ofMillis(100));
    }

    @Test
    void thePoolsHealthIsWhatZpoolPrints() {
        FakeZfs zfs = zfs();
        ZfsVolumeBackend backend = backend(zfs, "tank");

        assertThat(backend.health()).isEqualTo(PoolHealth.zpool("ONLINE"));
        zfs.setHealth("DEGRADED");
        assertThat(backend.health()).isEqualTo(PoolHealth.zpool("DEGRADED"));
        assertThat(zfs.argvs()).containsOnly(List.of("zpool", "list", "-H", "-o", "health", "tank"));
    }

    @Test
    void aPoolThatIsNotImportedIsUnavailable() {
        assertFails(backend(zfs(), "gone")::health, Kind.UNAVAILABLE, "pool gone is not imported");
    }

    @Test
    void aZvolExistsUntilItIsDestroyedAndExistsNeverWaitsForItsDevice() {
        FakeZfs zfs = zfs();
        ZfsVolumeBackend backend = backend(zfs, "tank");
        VolumeId id = VolumeId.of("pvc-1");
        zfs.run(pillar.runtime.exec.Command.of(Duration.ofSeconds(5), "zfs", "create", "-V", "8388608", "-s", "-o",
                "io.pillar-csi:managed=embedded", "tank/k8s/pvc-1"));

        assertThat(backend.exists(id)).isTrue(); // no device ever appears (Devices.NEVER): find would time out

        zfs.run(pillar.runtime.exec.Command.of(Duration.ofSeconds(5), "zfs", "destroy", "tank/k8s/pvc-1"));
        assertThat(backend.exists(id)).isFalse();
        assertThat(backend.exists(VolumeId.of("pvc-2"))).isFalse();
    }
}
