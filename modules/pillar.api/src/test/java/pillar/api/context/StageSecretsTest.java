package pillar.api.context;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class StageSecretsTest {
    private static final String SECRET_KEY = "[-._a-zA-Z0-9]+";
    private static final String NODE_A = "nqn.2014-08.org.nvmexpress:uuid:3f1e2d4c-5b6a-4798-8a9b-0c1d2e3f4a5b";
    private static final String NODE_B = "nqn.2014-08.org.nvmexpress:uuid:3f1e2d4c-5b6a-4798-8a9b-0c1d2e3f4a5c";

    @Test
    void aHostNqnGivesKeysASecretMayHold() {
        assertThat(StageSecrets.hostKey(NODE_A)).matches(SECRET_KEY).startsWith("dhchap-").endsWith(".secret")
                .doesNotContain(":");
        assertThat(StageSecrets.controllerKey(NODE_A)).matches(SECRET_KEY).endsWith(".ctrl-secret");
    }

    @Test
    void eachNodeAndEachSecretHasItsOwnKeyAndTheSameKeyEveryTime() {
        assertThat(StageSecrets.hostKey(NODE_A)).isEqualTo(StageSecrets.hostKey(NODE_A))
                .isNotEqualTo(StageSecrets.hostKey(NODE_B)).isNotEqualTo(StageSecrets.controllerKey(NODE_A));
    }
}
