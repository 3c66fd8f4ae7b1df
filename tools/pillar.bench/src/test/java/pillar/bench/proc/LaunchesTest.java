package pillar.bench.proc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LaunchesTest {
    @TempDir
    Path root;

    @Test
    void startsABuiltRuntimeFromItsHomeWhereItsAotCacheWasTrained() throws IOException {
        Path home = runtime("agent");
        List<String> command = new Launches(new Layout(root), List.of("-Xmx64m")).real("agent", List.of("--config", "a.yaml"));
        assertThat(command).containsExactly(root.resolve("jlink/run-at-home").toString(), home.toString(), "agent", "--config", "a.yaml");
    }

    @Test
    void refusesExtraFlagsForARuntimeRatherThanDroppingThem() throws IOException {
        runtime("controller");
        Launches launches = new Launches(new Layout(root), List.of());
        assertThatThrownBy(() -> launches.real("controller", List.of("-XX:AOTCacheOutput=x.aot"), List.of()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("-XX:AOTCacheOutput=x.aot");
    }

    @Test
    void comparesSettingsOnTheModulePathEvenWhenARuntimeIsBuilt() throws IOException {
        runtime("node");
        Path target = Files.createDirectories(root.resolve("modules/pillar.node/target/modules"));
        Files.createFile(target.resolveSibling("pillar.node-1.0.jar"));
        Launches launches = new Launches(new Layout(root), List.of("-XX:+UseSerialGC"), false);
        assertThat(launches.usesRuntime("node")).isFalse();
        assertThat(launches.real("node", List.of("-Xmx32m"), List.of())).contains("-XX:+UseSerialGC", "-Xmx32m", "-p")
                .doesNotContain(root.resolve("jlink/run-at-home").toString());
    }

    @Test
    void theControllerFromItsModulePathHasItsOwnHeapAndAFlagGivenLaterWins() throws IOException {
        Files.createDirectories(root.resolve("modules/pillar.controller/target/modules"));
        Files.createFile(root.resolve("modules/pillar.controller/target/pillar.controller-1.0.jar"));
        Launches launches = new Launches(new Layout(root), List.of("-XX:+UseSerialGC"), false);
        List<String> controller = launches.real("controller", List.of("-Xmx512m"), List.of());
        assertThat(controller).containsSubsequence("-Xmx192m", "-XX:+UseSerialGC", "-Xmx512m");
        assertThat(controller.indexOf("-Xmx192m")).isLessThan(controller.lastIndexOf("-Xmx512m"));
        assertThat(launches.real("controller", List.of())).contains("-Xmx192m").doesNotContain("-Xmx64m");
    }

    @Test
    void findsTheTestJarWhereTheAgentsPomPutsIt() throws IOException {
        Path jars = Files.createDirectories(root.resolve("modules/pillar.agent/target/test-jar"));
        Files.createFile(jars.resolve("pillar.agent-1.0-tests.jar"));
        Files.createFile(jars.resolveSibling("pillar.agent-1.0.jar"));
        assertThat(new Layout(root).testJar("agent")).isEqualTo(jars.resolve("pillar.agent-1.0-tests.jar"));
    }

    private Path runtime(String workload) throws IOException {
        Path home = Files.createDirectories(root.resolve("jlink/target/pillar-" + workload + "/bin"));
        Files.createFile(home.resolve("pillar-" + workload), PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwxr-xr-x")));
        return home.getParent();
    }
}
