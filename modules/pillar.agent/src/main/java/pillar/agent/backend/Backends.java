package pillar.agent.backend;

import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import pillar.agent.backend.lvm.LvmBackend;
import pillar.agent.backend.zfs.ZfsDatasetBackend;
import pillar.agent.backend.zfs.ZfsVolumeBackend;
import pillar.agent.config.BackendConfig;
import pillar.agent.state.InstallationId;
import pillar.runtime.exec.ProcessRunner;

/** Builds the configured backends by name: the adapter for each one's kind. */
public final class Backends {
    private Backends() {
    }

    /**
     * Where the backends find the host, and how long they wait.
     *
     * @param devRoot        the device tree ({@code /dev}): zvol links and {@code zdN} nodes
     * @param sysRoot        sysfs ({@code /sys}): {@code block/zdN} when no udev links zvols; NVMe-oF namespaces LVM must not scan
     * @param zvolId         the program that prints a zvol device's dataset ({@code /lib/udev/zvol_id})
     * @param commandTimeout the deadline of each zfs or lvm command
     * @param deviceTimeout  how long a call waits for a volume's block device to appear
     * @param procRoot       procfs ({@code /proc}): the mounts and processes an adoption looks for ({@link DeviceUsers})
     */
    public record Host(Path devRoot, Path sysRoot, Path zvolId, Duration commandTimeout, Duration deviceTimeout, Path procRoot) {
        /** A host whose procfs is {@code /proc}. */
        public Host(Path devRoot, Path sysRoot, Path zvolId, Duration commandTimeout, Duration deviceTimeout) {
            this(devRoot, sysRoot, zvolId, commandTimeout, deviceTimeout, Path.of("/proc"));
        }

        /** This host: {@code /dev}, {@code /sys}, {@code /lib/udev/zvol_id}, 2 minutes per command, 30 s for a device, {@code /proc}. */
        public static Host system() {
            return new Host(Path.of("/dev"), Path.of("/sys"), Path.of("/lib/udev/zvol_id"), Duration.ofMinutes(2), Duration.ofSeconds(30));
        }
    }

    /** {@link #create(List, ProcessRunner, Host)} on this host ({@link Host#system()}). */
    public static Map<String, VolumeBackend> create(List<BackendConfig> configs, ProcessRunner runner) {
        return create(configs, runner, Host.system());
    }

    /**
     * The backends of {@code configs} on {@code host}, by name, in configuration order, owning the
     * {@link InstallationId#EMBEDDED} installation's volumes (an in-process agent's).
     */
    public static Map<String, VolumeBackend> create(List<BackendConfig> configs, ProcessRunner runner, Host host) {
        return create(configs, runner, host, InstallationId.EMBEDDED);
    }

    /** The backends of {@code configs} on {@code host}, by name, in configuration order, owning {@code installation}'s volumes. */
    public static Map<String, VolumeBackend> create(List<BackendConfig> configs, ProcessRunner runner, Host host,
                                                    InstallationId installation) {
        Map<String, VolumeBackend> backends = new LinkedHashMap<>();
        for (BackendConfig config : configs) {
            if (backends.putIfAbsent(config.name(), of(config, runner, host, installation)) != null) {
                throw new IllegalArgumentException("backend " + config.name() + " is configured twice");
            }
        }
        return backends;
    }

    /** The adapter for one backend, owning {@code installation}'s volumes. */
    public static VolumeBackend of(BackendConfig config, ProcessRunner runner, Host host, InstallationId installation) {
        return switch (config.kind()) {
            case BACKEND_KIND_LVM_LINEAR, BACKEND_KIND_LVM_THIN -> LvmBackend.of(config, runner, host.devRoot(),
                    host.sysRoot(), host.commandTimeout(), host.deviceTimeout(), installation);
            case BACKEND_KIND_ZFS_ZVOL -> new ZfsVolumeBackend(config, runner, host.devRoot(), host.sysRoot(), host.procRoot(),
                    host.zvolId(), host.commandTimeout(), host.deviceTimeout(), installation);
            case BACKEND_KIND_ZFS_DATASET -> new ZfsDatasetBackend(config, runner, host.commandTimeout(), host.deviceTimeout(),
                    installation);
            default -> throw new IllegalArgumentException("backend " + config.name() + " has no supported kind: " + config.kind());
        };
    }
}
