package pillar.agent;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import pillar.agent.backend.Backends;
import pillar.agent.backend.lvm.FakeLvm;
import pillar.agent.backend.zfs.FakeZfs;
import pillar.agent.backend.VolumeBackend;
import pillar.agent.config.BackendConfig;
import pillar.agent.configfs.ConfigfsNvmetTarget;
import pillar.agent.configfs.FakeConfigfsTree;
import pillar.api.agent.v1.BackendKind;

/**
 * The start-up checks on fake trees and fake tools: what refuses to start (no configfs, no nvmet),
 * what starts and warns (no nvmet_tcp, a stand-in directory, a backend whose pool or volume group is
 * missing), with the exact texts an operator reads; and the agent's launch refusing with exit status 2.
 */
class StartupChecksTest {
    private static final long MIB = 1L << 20;
    private static final Path ROOT = FakeConfigfsTree.DEFAULT_ROOT;

    @TempDir
    Path dir;

    private Path sys;
    private Map<String, VolumeBackend> backends;

    @BeforeEach
    void hostWithNvmetTcpAndOneGoodBackend() throws Exception {
        sys = Files.createDirectories(dir.resolve("sys"));
        Files.createDirectories(sys.resolve("module/nvmet_tcp"));
        FakeLvm lvm = new FakeLvm("vg0", 1024 * MIB, dir.resolve("dev"));
        backends = new LinkedHashMap<>(Backends.create(
                java.util.List.of(new BackendConfig("fast", BackendKind.BACKEND_KIND_LVM_LINEAR, "vg0", "")), lvm));
    }

    @Test
    void aDatasetBackendWithoutAnNfsServerIsWarnedAboutByName() {
        assertThat(StartupChecks.nfsWarnings(java.util.List.of("shared"), java.util.Optional.of("rpc.mountd does not run")))
                .singleElement().asString().contains("backend shared exports over NFS, and rpc.mountd does not run");
        assertThat(StartupChecks.nfsWarnings(java.util.List.of("shared"), java.util.Optional.empty()))
                .singleElement().asString().contains("NFS server serves");
        assertThat(StartupChecks.nfsWarnings(java.util.List.of(), java.util.Optional.empty())).isEmpty();
    }

    @Test
    void aReadyHostStartsWithoutWarnings() {
        StartupChecks.Report report = StartupChecks.run(FakeConfigfsTree.create().target(), ROOT, sys, backends);
        assertThat(report.refusals()).isEmpty();
        assertThat(report.warnings()).isEmpty();
        assertThat(report.notes()).containsExactly("nvmet target at " + ROOT.resolve("nvmet"),
                "backend fast: 1GiB of 1GiB available");
    }

    @Test
    void noConfigfsRefusesToStart() {
        StartupChecks.Report report = StartupChecks.run(FakeConfigfsTree.unmounted().target(), ROOT, sys, backends);
        assertThat(report.refusals()).containsExactly("configfs is not mounted at " + ROOT + ": mount it (mount -t configfs"
                + " none " + ROOT + ") or set agent.configfs-root to where it is; are nvmet and nvmet_tcp loaded?");
    }

    @Test
    void noNvmetRefusesToStart() {
        StartupChecks.Report report = StartupChecks.run(FakeConfigfsTree.withoutNvmet().target(), ROOT, sys, backends);
        assertThat(report.refusals()).containsExactly(ROOT + "/nvmet does not exist although configfs is mounted:"
                + " are nvmet and nvmet_tcp loaded? (modprobe nvmet nvmet_tcp)");
    }

    @Test
    void noNvmetTcpStartsWithAWarning() throws Exception {
        Files.delete(sys.resolve("module/nvmet_tcp"));
        StartupChecks.Report report = StartupChecks.run(FakeConfigfsTree.create().target(), ROOT, sys, backends);
        assertThat(report.refusals()).isEmpty();
        assertThat(report.warnings()).containsExactly("the nvmet_tcp module is not loaded (" + sys.resolve("module/nvmet_tcp")
                + " is missing): are nvmet and nvmet_tcp loaded? The kernel loads it when the first port is enabled if it"
                + " can; if it cannot, exports fail then");
    }

    @Test
    void aPlainDirectoryIsAStandInOrNothing() throws Exception {
        Path standIn = dir.resolve("configfs");
        Files.createDirectories(standIn.resolve("nvmet"));
        StartupChecks.Report report = StartupChecks.run(new ConfigfsNvmetTarget(standIn), standIn, sys, backends);
        assertThat(report.refusals()).isEmpty();
        assertThat(report.warnings()).singleElement().asString().startsWith(standIn + " is not a configfs mount")
                .contains("reach no kernel");

        Path empty = Files.createDirectories(dir.resolve("empty")); // what /sys/kernel/config is before the mount
        assertThat(StartupChecks.run(new ConfigfsNvmetTarget(empty), empty, sys, backends).refusals())
                .singleElement().asString().startsWith("configfs is not mounted at " + empty);
    }

    @Test
    void aMissingPoolOrVolumeGroupDoesNotStopTheOtherBackends() {
        FakeZfs zfs = new FakeZfs("tank", 1024 * MIB, dir.resolve("dev"), sys, "/lib/udev/zvol_id", FakeZfs.Devices.UDEV);
        backends.putAll(Backends.create(java.util.List.of(
                new BackendConfig("zfs-gone", BackendKind.BACKEND_KIND_ZFS_ZVOL, "tank", "k8s")), zfs));
        FakeLvm otherVg = new FakeLvm("vg0", 1024 * MIB, dir.resolve("dev"));
        backends.putAll(Backends.create(java.util.List.of(
                new BackendConfig("lvm-gone", BackendKind.BACKEND_KIND_LVM_THIN, "vg9", "pool0")), otherVg));

        StartupChecks.Report report = StartupChecks.run(FakeConfigfsTree.create().target(), ROOT, sys, backends);
        assertThat(report.refusals()).isEmpty();
        assertThat(report.notes()).contains("backend fast: 1GiB of 1GiB available");
        assertThat(report.warnings()).hasSize(2);
        assertThat(report.warnings().get(0)).startsWith("backend zfs-gone is not usable: parent dataset tank/k8s is not available")
                .endsWith("The agent serves its other backends; calls for zfs-gone fail until it is there (no restart needed)");
        assertThat(report.warnings().get(1)).startsWith("backend lvm-gone is not usable: ").contains("vg9")
                .endsWith("calls for lvm-gone fail until it is there (no restart needed)");
    }

    @Test
    void theAgentRefusesToStartWithExitStatus2AndSaysWhy() throws Exception {
        Path empty = Files.createDirectories(dir.resolve("not-mounted"));
        Path config = dir.resolve("agent.yaml");
        Files.writeString(config, """
                agent:
                  listen: {host: 127.0.0.1, port: 0}
                  state-dir: %s
                  configfs-root: %s
                  backends:
                    - {name: fast, type: lvm, volume-group: vg0}
                health: {host: 127.0.0.1, port: 0}
                """.formatted(dir.resolve("state"), empty));
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int status = AgentMain.launch(new String[] {"--config", config.toString()}, sys, new PrintStream(err, true, StandardCharsets.UTF_8));
        assertThat(status).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8)).isEqualTo("pillar-agent: refusing to start: configfs is not mounted at "
                + empty + ": mount it (mount -t configfs none " + empty + ") or set agent.configfs-root to where it is;"
                + " are nvmet and nvmet_tcp loaded?" + System.lineSeparator());
        assertThat(dir.resolve("state")).as("nothing was written").doesNotExist();

        // the recovery is asked for by a flag of its own, and needs the target it rebuilds the state from
        ByteArrayOutputStream recovery = new ByteArrayOutputStream();
        status = AgentMain.launch(new String[] {"--config", config.toString(), "--recover-state"}, sys,
                new PrintStream(recovery, true, StandardCharsets.UTF_8));
        assertThat(status).isEqualTo(2);
        assertThat(recovery.toString(StandardCharsets.UTF_8)).isEqualTo("pillar-agent: cannot recover the state: no nvmet target at "
                + empty + System.lineSeparator());
        assertThat(dir.resolve("state")).as("nothing was written").doesNotExist();

        // a log format it does not know is refused before anything else, not silently kept as text
        ByteArrayOutputStream format = new ByteArrayOutputStream();
        status = AgentMain.launch(new String[] {"--config", config.toString(), "--log.format=jsn"}, sys,
                new PrintStream(format, true, StandardCharsets.UTF_8));
        assertThat(status).isEqualTo(2);
        assertThat(format.toString(StandardCharsets.UTF_8)).isEqualTo("pillar-agent: refusing to start: log.format must be"
                + " text or json, is 'jsn'" + System.lineSeparator());
    }
}
