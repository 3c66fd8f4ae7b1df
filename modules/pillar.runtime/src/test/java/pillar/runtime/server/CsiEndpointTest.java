package pillar.runtime.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import java.util.Optional;

import io.helidon.config.Config;
import io.helidon.config.ConfigSources;
import org.junit.jupiter.api.Test;

/** Where a CSI workload's health listens: health.host, else the address in health.host-env's variable, else every address. */
class CsiEndpointTest {
    private static CsiEndpoint endpoint(Map<String, String> settings, Map<String, String> environment) {
        Config root = Config.builder().disableEnvironmentVariablesSource().disableSystemPropertiesSource()
                .addSource(ConfigSources.create(settings)).build();
        return CsiEndpoint.from(root, 9809, name -> Optional.ofNullable(environment.get(name)));
    }

    @Test
    void healthListensOnTheAddressInTheNamedVariable() {
        assertThat(endpoint(Map.of("health.host-env", "PILLAR_NODE_IP"), Map.of("PILLAR_NODE_IP", " 192.0.2.7 ")).healthHost())
                .isEqualTo("192.0.2.7");
        assertThat(endpoint(Map.of("health.host", "127.0.0.1"), Map.of()).healthHost()).isEqualTo("127.0.0.1");
        assertThat(endpoint(Map.of(), Map.of()).healthHost()).isEqualTo("0.0.0.0");
    }

    @Test
    void anUnsetVariableOrBothKeysRefuseToStart() {
        assertThatThrownBy(() -> endpoint(Map.of("health.host-env", "PILLAR_NODE_IP"), Map.of()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("PILLAR_NODE_IP, which is not set or empty");
        assertThatThrownBy(() -> endpoint(Map.of("health.host-env", "PILLAR_NODE_IP", "health.host", "0.0.0.0"),
                Map.of("PILLAR_NODE_IP", "192.0.2.7"))).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("both set");
    }
}
