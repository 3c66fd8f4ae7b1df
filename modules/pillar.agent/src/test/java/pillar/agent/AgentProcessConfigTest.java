package pillar.agent;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;

import io.helidon.config.Config;
import io.helidon.config.ConfigSources;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import pillar.agent.config.AgentConfig;
import pillar.agent.config.BackendConfig;
import pillar.api.agent.v1.BackendKind;

/** The configuration the kernel tests give the agents they start reads back, through the agent's own loader, as written. */
class AgentProcessConfigTest {
    @TempDir
    Path dir;

    @Test
    void whatIsWrittenIsWhatTheAgentReads() throws Exception {
        Path file = AgentProcess.writeConfig(dir.resolve("agent.yaml"), 19521, 19821, dir.resolve("state"),
                List.of("call-budget-seconds: 10", "installation-id: alpha"),
                "{name: slow, type: lvm, volume-group: vg0}", "{name: thin, type: lvm-thin, volume-group: vg0, thin-pool: pool0}",
                "{name: zfs, type: zfs, pool: tank, parent-dataset: k8s}");

        Config root = Config.just(ConfigSources.file(file));
        AgentConfig config = AgentConfig.from(root);

        assertThat(config.listenHost()).isEqualTo("127.0.0.1");
        assertThat(config.listenPort()).isEqualTo(19521);
        assertThat(config.healthPort()).isEqualTo(19821);
        assertThat(config.configfsRoot()).isEqualTo(Path.of("/sys/kernel/config"));
        assertThat(config.installationId()).map(pillar.agent.state.InstallationId::value).hasValue("alpha");
        assertThat(root.get("agent.call-budget-seconds").asInt().get()).isEqualTo(10);
        assertThat(config.backends()).extracting(BackendConfig::name, BackendConfig::kind).containsExactly(
                org.assertj.core.groups.Tuple.tuple("slow", BackendKind.BACKEND_KIND_LVM_LINEAR),
                org.assertj.core.groups.Tuple.tuple("thin", BackendKind.BACKEND_KIND_LVM_THIN),
                org.assertj.core.groups.Tuple.tuple("zfs", BackendKind.BACKEND_KIND_ZFS_ZVOL));
    }
}
