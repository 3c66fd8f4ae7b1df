package pillar.agent.backend;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import pillar.agent.backend.lvm.LinearLvmBackend;
import pillar.agent.backend.lvm.ThinLvmBackend;
import pillar.agent.backend.zfs.ZfsDatasetBackend;
import pillar.agent.backend.zfs.ZfsVolumeBackend;
import pillar.agent.config.BackendConfig;
import pillar.api.agent.v1.BackendKind;
import pillar.runtime.exec.ProcessRunner;

/** Each configured kind gets its adapter, by name, and building them runs no command. */
class BackendsTest {
    private static final ProcessRunner NO_COMMANDS = command -> {
        throw new AssertionError("building a backend must not run " + command);
    };

    @Test
    void eachKindGetsItsAdapter() {
        Map<String, VolumeBackend> backends = Backends.create(List.of(
                new BackendConfig("zfs", BackendKind.BACKEND_KIND_ZFS_ZVOL, "tank", "k8s"),
                new BackendConfig("lvm", BackendKind.BACKEND_KIND_LVM_LINEAR, "vg0", ""),
                new BackendConfig("thin", BackendKind.BACKEND_KIND_LVM_THIN, "vg0", "pool0"),
                new BackendConfig("nfs", BackendKind.BACKEND_KIND_ZFS_DATASET, "tank", "nfs")),
                NO_COMMANDS, new Backends.Host(Path.of("/fake/dev"), Path.of("/fake/sys"), Path.of("/fake/zvol_id"), Duration.ofSeconds(1),
                        Duration.ofSeconds(1)));

        assertThat(backends.keySet()).containsExactly("zfs", "lvm", "thin", "nfs");
        assertThat(backends.get("nfs")).isInstanceOf(ZfsDatasetBackend.class);
        assertThat(backends.get("zfs")).isInstanceOf(ZfsVolumeBackend.class);
        assertThat(backends.get("lvm")).isInstanceOf(LinearLvmBackend.class);
        assertThat(backends.get("thin")).isInstanceOf(ThinLvmBackend.class);
        assertThat(backends.values()).extracting(VolumeBackend::name).containsExactly("zfs", "lvm", "thin", "nfs");
    }

    @Test
    void aNameConfiguredTwiceIsRefused() {
        BackendConfig one = new BackendConfig("lvm", BackendKind.BACKEND_KIND_LVM_LINEAR, "vg0", "");
        assertThatThrownBy(() -> Backends.create(List.of(one, one), NO_COMMANDS)).hasMessageContaining("configured twice");
    }

    @Test
    void theSystemHostIsTheRealOne() {
        Backends.Host host = Backends.Host.system();
        assertThat(host.devRoot()).isEqualTo(Path.of("/dev"));
        assertThat(host.sysRoot()).isEqualTo(Path.of("/sys"));
        assertThat(host.zvolId()).isEqualTo(Path.of("/lib/udev/zvol_id"));
    }
}
