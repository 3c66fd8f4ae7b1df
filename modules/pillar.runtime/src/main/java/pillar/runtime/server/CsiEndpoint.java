package pillar.runtime.server;

import java.nio.file.Path;
import java.util.Optional;
import java.util.function.Function;

import io.helidon.config.Config;

/**
 * Where a CSI workload listens: its UNIX socket ({@code csi.socket}, default {@code /csi/csi.sock})
 * and its HTTP health endpoint ({@code health.host}, or the address in the environment variable named
 * by {@code health.host-env} (on the host network: the node's address, not every address of the
 * host), else {@code 0.0.0.0}; {@code health.port}).
 */
public record CsiEndpoint(Path socket, String healthHost, int healthPort) {
    public static final Path DEFAULT_SOCKET = Path.of("/csi/csi.sock");

    public CsiEndpoint {
        if (!socket.isAbsolute()) {
            throw new IllegalArgumentException("csi.socket must be an absolute path, is " + socket);
        }
        if (healthPort < 0 || healthPort > 65535) {
            throw new IllegalArgumentException("health.port must be 0 to 65535, is " + healthPort);
        }
    }

    public static CsiEndpoint from(Config root, int defaultHealthPort) {
        return from(root, defaultHealthPort, name -> Optional.ofNullable(System.getenv(name)));
    }

    /** {@link #from(Config, int)} with the environment's variables read by {@code environment}. */
    public static CsiEndpoint from(Config root, int defaultHealthPort, Function<String, Optional<String>> environment) {
        Optional<String> host = root.get("health.host").asString().asOptional();
        Optional<String> hostEnv = root.get("health.host-env").asString().asOptional();
        if (host.isPresent() && hostEnv.isPresent()) {
            throw new IllegalArgumentException("health.host and health.host-env are both set: give one");
        }
        String healthHost = host.orElseGet(() -> hostEnv.map(variable -> environment.apply(variable).map(String::strip)
                .filter(value -> !value.isEmpty()).orElseThrow(() -> new IllegalArgumentException("health.host-env names the"
                        + " environment variable " + variable + ", which is not set or empty: set it to this node's address"
                        + " (the chart sets it from status.hostIP), or set health.host")))
                .orElse("0.0.0.0"));
        return new CsiEndpoint(
                Path.of(root.get("csi.socket").asString().orElse(DEFAULT_SOCKET.toString())),
                healthHost,
                root.get("health.port").asInt().orElse(defaultHealthPort));
    }

    /** A server builder listening here; the caller adds services and starts it. */
    public WorkloadServer.Builder serverBuilder() {
        return WorkloadServer.builder().unixSocket(socket).health(healthHost, healthPort);
    }
}
