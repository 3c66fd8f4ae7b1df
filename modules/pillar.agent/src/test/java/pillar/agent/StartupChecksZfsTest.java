package pillar.agent;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import pillar.agent.backend.Captures;
import pillar.agent.backend.ScriptedRunner;
import pillar.agent.config.BackendConfig;
import pillar.api.agent.v1.BackendKind;
import pillar.runtime.exec.Command;

/**
 * The start-up check of the zfs tools against the loaded module ({@link StartupChecks#zfsTools}) on real
 * {@code zfs version} output and a fake sysfs: which backends it runs for, what refuses, warns and passes,
 * and the refusal naming both versions.
 */
class StartupChecksZfsTest {
    private static final Duration DEADLINE = Duration.ofSeconds(7);
    private static final List<BackendConfig> ZVOLS = List.of(new BackendConfig("tank", BackendKind.BACKEND_KIND_ZFS_ZVOL, "tank", "k8s"));

    @TempDir
    Path sys;

    @Test
    void noZfsBackendChecksNothing() throws Exception {
        module("2.3.2-2~bpo12+2");
        ScriptedRunner runner = new ScriptedRunner();
        StartupChecks.Report report = StartupChecks.zfsTools(List.of(new BackendConfig("fast", BackendKind.BACKEND_KIND_LVM_LINEAR,
                "vg0", "")), runner, DEADLINE, sys);
        assertThat(report).isEqualTo(new StartupChecks.Report(List.of(), List.of(), List.of()));
        assertThat(runner.commands()).isEmpty();
    }

    @Test
    void theModuleNotLoadedChecksNothingAndSaysSo() {
        ScriptedRunner runner = new ScriptedRunner();
        StartupChecks.Report report = StartupChecks.zfsTools(ZVOLS, runner, DEADLINE, sys);
        assertThat(report.refusals()).isEmpty();
        assertThat(report.warnings()).isEmpty();
        assertThat(report.notes()).singleElement().asString().contains("the zfs module is not loaded");
        assertThat(runner.commands()).isEmpty();
    }

    @Test
    void toolsOfTheModulesReleasePass() throws Exception {
        module("2.1.11-1+deb12u1");
        ScriptedRunner runner = new ScriptedRunner(Captures.zfs("version"));
        StartupChecks.Report report = StartupChecks.zfsTools(ZVOLS, runner, DEADLINE, sys);
        assertThat(report.refusals()).isEmpty();
        assertThat(report.warnings()).isEmpty();
        assertThat(report.notes()).containsExactly("zfs tools 2.1.11-1+deb12u1 with the host's zfs module 2.1.11-1+deb12u1");
        assertThat(runner.commands()).containsExactly(new Command(List.of("zfs", "version"), DEADLINE));
    }

    @Test
    void toolsOfAnotherReleaseLineRefuseTheStartNamingBothVersions() throws Exception {
        Files.createDirectories(sys.resolve("module/zfs"));
        Files.writeString(sys.resolve(StartupChecks.ZFS_MODULE_VERSION), Captures.read("zfs/module-version-2.3.txt"));
        StartupChecks.Report report = StartupChecks.zfsTools(List.of(new BackendConfig("shared", BackendKind.BACKEND_KIND_ZFS_DATASET,
                "tank", "nfs")), new ScriptedRunner(Captures.zfs("version-mismatch")), DEADLINE, sys);
        assertThat(report.refusals()).singleElement().asString()
                .startsWith("the zfs tools are 2.1.11-1+deb12u1 (zfs version) but the host's zfs module is 2.3.2-2~bpo12+2"
                        + " (release lines 2.1 and 2.3)")
                .contains("zfsutils-linux of the module's release 2.3", "the host's own tools", "docs/troubleshooting.md");
        assertThat(report.warnings()).isEmpty();
    }

    @Test
    void newerToolsThanTheModuleRefuseToo() throws Exception {
        module("2.1.11-1+deb12u1");
        StartupChecks.Report report = StartupChecks.zfsTools(ZVOLS, new ScriptedRunner(ScriptedRunner.printing(
                "zfs-2.3.2-2~bpo12+2\nzfs-kmod-2.1.11-1+deb12u1\n", "")), DEADLINE, sys);
        assertThat(report.refusals()).singleElement().asString()
                .contains("the zfs tools are 2.3.2-2~bpo12+2", "the host's zfs module is 2.1.11-1+deb12u1", "release 2.1");
    }

    @Test
    void anotherPatchLevelIsAWarning() throws Exception {
        module("2.1.11-1+deb12u1");
        StartupChecks.Report report = StartupChecks.zfsTools(ZVOLS, new ScriptedRunner(ScriptedRunner.printing(
                "zfs-2.1.12-1\nzfs-kmod-2.1.11-1+deb12u1\n", "")), DEADLINE, sys);
        assertThat(report.refusals()).isEmpty();
        assertThat(report.warnings()).singleElement().asString()
                .contains("the zfs tools are 2.1.12-1 and the host's zfs module is 2.1.11-1+deb12u1", "one release line (2.1)");
    }

    @Test
    void toolsThatDoNotSayTheirVersionAreAWarning() throws Exception {
        module("2.1.11-1+deb12u1");
        StartupChecks.Report report = StartupChecks.zfsTools(ZVOLS, new ScriptedRunner(new Captures.Capture("zfs version", "",
                "zfs: command not found", 127)), DEADLINE, sys);
        assertThat(report.refusals()).isEmpty();
        assertThat(report.warnings()).singleElement().asString()
                .startsWith("the zfs tools' version cannot be checked against the host's zfs module: zfs version exited with status 127");
    }

    @Test
    void reportsAddUp() {
        StartupChecks.Report a = new StartupChecks.Report(List.of("r1"), List.of("w1"), List.of());
        StartupChecks.Report b = new StartupChecks.Report(List.of("r2"), List.of(), List.of("n2"));
        assertThat(a.plus(b)).isEqualTo(new StartupChecks.Report(List.of("r1", "r2"), List.of("w1"), List.of("n2")));
    }

    private void module(String version) throws Exception {
        Files.createDirectories(sys.resolve("module/zfs"));
        Files.writeString(sys.resolve(StartupChecks.ZFS_MODULE_VERSION), version + "\n");
    }
}
