package pillar.runtime.server;

import java.nio.file.Path;

import io.helidon.config.Config;

/**
 * Where a CSI workload listens: its UNIX socket ({@code csi.socket}, default {@code /csi/csi.sock})
 * and its HTTP health endpoint ({@code health.host}, {@code health.port}).
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
        return new CsiEndpoint(
                Path.of(root.get("csi.socket").asString().orElse(DEFAULT_SOCKET.toString())),
                root.get("health.host").asString().orElse("0.0.0.0"),
                root.get("health.port").asInt().orElse(defaultHealthPort));
    }

    /** A server builder listening here; the caller adds services and starts it. */
    public WorkloadServer.Builder serverBuilder() {
        return WorkloadServer.builder().unixSocket(socket).health(healthHost, healthPort);
    }
}
