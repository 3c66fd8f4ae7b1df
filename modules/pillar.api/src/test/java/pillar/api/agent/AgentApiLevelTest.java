package pillar.api.agent;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.InputStreamReader;
import java.io.Reader;
import java.nio.charset.StandardCharsets;

import com.google.protobuf.TextFormat;
import org.junit.jupiter.api.Test;
import pillar.api.agent.v1.GetCapabilitiesResponse;

class AgentApiLevelTest {
    /** What the previous release's agent answered (test resource): it knew no levels. */
    private static GetCapabilitiesResponse beforeLevels() throws Exception {
        GetCapabilitiesResponse.Builder builder = GetCapabilitiesResponse.newBuilder();
        try (Reader in = new InputStreamReader(AgentApiLevelTest.class.getResourceAsStream("capabilities-before-levels.txtpb"),
                StandardCharsets.UTF_8)) {
            TextFormat.merge(in, builder);
        }
        return builder.build();
    }

    @Test
    void anAgentOfBeforeLevelsSpeaksLevelOneAndWorksWithThisController() throws Exception {
        GetCapabilitiesResponse previous = beforeLevels();

        assertThat(previous.getAgentVersion()).as("the record read").isEqualTo("0.1.0");
        assertThat(AgentApiLevel.agentLevel(previous)).isEqualTo(1);
        assertThat(AgentApiLevel.oldestControllerLevel(previous)).isEqualTo(1);
        assertThat(AgentApiLevel.mismatch(previous, AgentApiLevel.CURRENT, AgentApiLevel.OLDEST_AGENT)).isEmpty();
    }

    @Test
    void aControllerThatNeedsANewerAgentSaysToUpgradeTheAgent() throws Exception {
        assertThat(AgentApiLevel.mismatch(beforeLevels(), 2, 2)).hasValueSatisfying(m -> assertThat(m)
                .contains("0.1.0").contains("speaks agent API level 1").contains("level 2 or newer").endsWith("upgrade the agent"));
    }

    @Test
    void anAgentThatServesOnlyNewerControllersSaysToUpgradeTheController() {
        GetCapabilitiesResponse future = GetCapabilitiesResponse.newBuilder().setAgentVersion("9.0.0")
                .setApiLevel(AgentApiLevel.CURRENT + 2).setOldestControllerLevel(AgentApiLevel.CURRENT + 1).build();

        assertThat(AgentApiLevel.mismatch(future, AgentApiLevel.CURRENT, AgentApiLevel.OLDEST_AGENT)).hasValueSatisfying(m ->
                assertThat(m).contains("9.0.0").contains("level " + (AgentApiLevel.CURRENT + 1) + " or newer")
                        .endsWith("upgrade the controller"));
    }

    @Test
    void aNewerAgentThatStillServesThisControllerWorksWithIt() {
        GetCapabilitiesResponse newer = GetCapabilitiesResponse.newBuilder().setAgentVersion("2.0.0")
                .setApiLevel(AgentApiLevel.CURRENT + 1).setOldestControllerLevel(AgentApiLevel.CURRENT).build();

        assertThat(AgentApiLevel.mismatch(newer, AgentApiLevel.CURRENT, AgentApiLevel.OLDEST_AGENT)).isEmpty();
    }
}
