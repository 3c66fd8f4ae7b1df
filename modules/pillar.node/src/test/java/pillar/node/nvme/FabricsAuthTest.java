package pillar.node.nvme;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import java.util.Optional;

import org.junit.jupiter.api.Test;

import pillar.api.context.PublishContext;
import pillar.api.context.StageSecrets;
import pillar.api.value.DhchapSecret;
import pillar.api.value.InvalidValueException;
import pillar.api.value.Nqn;

class FabricsAuthTest {
    private static final String KEY = DhchapSecret.encode(1, new byte[32]).value();
    private static final String CTRL = DhchapSecret.encode(2, new byte[48]).value();
    private static final String H1 = StageSecrets.hostKey("n1");
    private static final String C1 = StageSecrets.controllerKey("n1");
    private static final String H2 = StageSecrets.hostKey("n2");
    private static final Map<String, String> DHCHAP = Map.of(PublishContext.AUTH, PublishContext.AUTH_DHCHAP);

    @Test
    void noAuthInTheContextMeansNoSecretsWhateverTheRequestCarries() {
        assertThat(FabricsAuth.fromStage(Map.of(), Map.of(H1, KEY), "n1")).isEmpty();
    }

    @Test
    void theNodeReadsOnlyItsOwnKeys() {
        FabricsAuth auth = FabricsAuth.fromStage(DHCHAP, Map.of(H1, KEY, C1, CTRL,
                H2, CTRL), "n1").orElseThrow();
        assertThat(auth).isEqualTo(new FabricsAuth(DhchapSecret.of("k", KEY), Optional.of(DhchapSecret.of("k", CTRL))));
        assertThat(auth.toString()).doesNotContain(KEY).doesNotContain(CTRL);
        assertThat(FabricsAuth.fromStage(DHCHAP, Map.of(H1, KEY), "n1").orElseThrow().controllerSecret()).isEmpty();
    }

    @Test
    void aMissingOrMalformedSecretIsRefusedWithoutShowingIt() {
        assertThatThrownBy(() -> FabricsAuth.fromStage(DHCHAP, Map.of(H2, KEY), "n1"))
                .isInstanceOf(FabricsAuth.MissingSecretException.class).hasMessageContaining("'" + H1 + "'");
        String bad = KEY.replace("DHHC-1:01:", "DHHC-1:09:");
        assertThatThrownBy(() -> FabricsAuth.fromStage(DHCHAP, Map.of(H1, bad), "n1"))
                .isInstanceOf(InvalidValueException.class).hasMessageStartingWith("secrets." + H1 + ": ")
                .satisfies(e -> assertThat(e.getMessage()).doesNotContain(bad.substring(10)));
        assertThatThrownBy(() -> FabricsAuth.fromStage(DHCHAP, Map.of(H1, KEY, C1, "x"), "n1"))
                .isInstanceOf(InvalidValueException.class).hasMessageStartingWith("secrets." + C1 + ": ");
        assertThatThrownBy(() -> FabricsAuth.fromStage(Map.of(PublishContext.AUTH, "tls"), Map.of(), "n1"))
                .isInstanceOf(InvalidValueException.class).hasMessageContaining("publish_context.auth");
    }

    @Test
    void theSecretsBecomeTheKernelsConnectOptions() {
        FabricsTarget target = new FabricsTarget(Nqn.of("nqn.2024-06.io.pillar-csi:pvc-1"), "tcp", "10.0.0.5", 4420, 30, 2, 0);
        Nqn host = Nqn.of("nqn.2014-08.org.nvmexpress:uuid:11111111-2222-3333-4444-555555555555");
        FabricsAuth auth = new FabricsAuth(DhchapSecret.of("k", KEY), Optional.of(DhchapSecret.of("k", CTRL)));
        assertThat(FabricsOptions.connect(target, host, Optional.of(auth))).isEqualTo(FabricsOptions.connect(target, host)
                + ",dhchap_secret=" + KEY + ",dhchap_ctrl_secret=" + CTRL);
        assertThat(FabricsOptions.connect(target, host, Optional.empty())).doesNotContain("dhchap");
    }
}
