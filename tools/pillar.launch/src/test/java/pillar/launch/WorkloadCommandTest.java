package pillar.launch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class WorkloadCommandTest {
    private static final Instant BUILT = Instant.parse("2026-12-01T10:00:00Z");

    @TempDir
    Path root;

    private final WorkloadCommand agent = new WorkloadCommand("pillar.agent", "AgentMain", List.of("--config", "/etc/agent.yaml"));

    @Test
    void runsTheModulesPackagedJarAndModulePathWithItsArguments() throws IOException {
        Path target = built("pillar.agent", "grpc-netty-shaded-1.76.0.jar");
        List<String> command = agent.toList(root);
        assertThat(command.getFirst()).isEqualTo(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        assertThat(command).containsSubsequence(WorkloadCommand.JVM_FLAGS);
        assertThat(command).containsSequence("-p", target.resolve("modules") + ":" + target.resolve("pillar.agent-0.1.0-SNAPSHOT.jar"),
                "--add-modules", "ALL-MODULE-PATH", "-m", "pillar.agent/pillar.agent.AgentMain", "--config", "/etc/agent.yaml");
        assertThat(command).contains("--enable-native-access=io.grpc.netty.shaded").noneMatch(a -> a.startsWith("-XX:AOTCache"));
    }

    @Test
    void aModuleWithJnaMayCallNativeCodeThroughIt() throws IOException {
        built("pillar.node", "grpc-netty-shaded-1.76.0.jar", "jna-jpms-5.18.1.jar");
        assertThat(new WorkloadCommand("pillar.node", "NodeMain", List.of()).toList(root))
                .contains("--enable-native-access=io.grpc.netty.shaded,com.sun.jna");
    }

    @Test
    void aCacheNewerThanEveryJarIsUsedAndAStaleOneIsNot() throws IOException {
        Path target = built("pillar.agent", "grpc-netty-shaded-1.76.0.jar");
        Path cache = WorkloadCommand.aotCache(root, "pillar.agent");
        Files.createDirectories(cache.getParent());
        Files.writeString(cache, "cache");
        Files.setLastModifiedTime(cache, FileTime.from(BUILT.plusSeconds(60)));
        assertThat(agent.toList(root)).contains("-XX:AOTCache=" + cache);
        assertThat(agent.cacheFresh(root, cache.getParent())).isTrue();

        Files.setLastModifiedTime(target.resolve("modules/grpc-netty-shaded-1.76.0.jar"), FileTime.from(BUILT.plusSeconds(120)));
        assertThat(agent.cacheFresh(root, cache.getParent())).isFalse();
        assertThat(agent.toList(root)).noneMatch(a -> a.startsWith("-XX:AOTCache"));
        assertThat(agent.toList(root, cache, WorkloadCommand.Aot.USE_OR_RECORD)).contains("-XX:AOTCacheOutput=" + cache)
                .noneMatch(a -> a.startsWith("-XX:AOTCache="));
    }

    @Test
    void aCacheIsRecordedOnlyWhereItsDirectoryExists() throws IOException {
        built("pillar.agent", "grpc-netty-shaded-1.76.0.jar");
        Path cache = WorkloadCommand.aotCache(root, "pillar.agent");
        assertThat(agent.toList(root, cache, WorkloadCommand.Aot.USE_OR_RECORD)).noneMatch(a -> a.startsWith("-XX:AOTCache"));
    }

    @Test
    void theJarIsTheModulesOwnNotItsSourcesOrTestsAndItsAbsenceSaysToBuild() throws IOException {
        Path target = Files.createDirectories(root.resolve("modules/pillar.agent/target"));
        Files.writeString(target.resolve("pillar.agent-0.1.0-SNAPSHOT-sources.jar"), "");
        Files.writeString(target.resolve("pillar.agent-0.1.0-SNAPSHOT-tests.jar"), "");
        assertThatThrownBy(() -> WorkloadCommand.jar(target, "pillar.agent")).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("build first");
        Files.writeString(target.resolve("pillar.agent-0.1.0-SNAPSHOT.jar"), "");
        assertThat(WorkloadCommand.jar(target, "pillar.agent")).isEqualTo(target.resolve("pillar.agent-0.1.0-SNAPSHOT.jar"));
    }

    /** A module's target as the build leaves it: its jar and its module path, all made at {@link #BUILT}. */
    private Path built(String module, String... dependencies) throws IOException {
        Path target = Files.createDirectories(root.resolve("modules").resolve(module).resolve("target"));
        Path modules = Files.createDirectories(target.resolve("modules"));
        Path jar = Files.writeString(target.resolve(module + "-0.1.0-SNAPSHOT.jar"), "");
        Files.setLastModifiedTime(jar, FileTime.from(BUILT));
        for (String d : dependencies) {
            Files.setLastModifiedTime(Files.writeString(modules.resolve(d), ""), FileTime.from(BUILT));
        }
        return target;
    }
}
