package pillar.runtime.server;

import java.time.Duration;

import io.helidon.config.Config;

/**
 * The bounds of a workload's server: connections accepted at once on its gRPC endpoint
 * ({@code server.max-connections}) and on its health port ({@code server.max-health-connections}),
 * gRPC calls served at once ({@code server.max-concurrent-calls}; one more is refused with
 * UNAVAILABLE, see {@link CallLimit}), and how long it waits at start for a port still in use
 * ({@code server.bind-timeout-seconds}, see {@link FreeAddresses}). A connection over its bound waits
 * in the listen backlog until one closes.
 */
public record ServerLimits(int maxConnections, int maxHealthConnections, int maxConcurrentCalls, Duration bindTimeout) {
    /** 64 gRPC connections, 16 health connections, 128 concurrent calls, 60 s for a port in use. */
    public static final ServerLimits DEFAULTS = new ServerLimits(64, 16, 128, Duration.ofSeconds(60));

    public ServerLimits {
        positive("server.max-connections", maxConnections);
        positive("server.max-health-connections", maxHealthConnections);
        positive("server.max-concurrent-calls", maxConcurrentCalls);
        if (bindTimeout.isNegative()) {
            throw new IllegalArgumentException("server.bind-timeout-seconds must not be negative, is " + bindTimeout.toSeconds());
        }
    }

    /** The {@code server.*} keys of {@code root}, each defaulting to {@link #DEFAULTS}. */
    public static ServerLimits from(Config root) {
        Config server = root.get("server");
        return new ServerLimits(server.get("max-connections").asInt().orElse(DEFAULTS.maxConnections),
                server.get("max-health-connections").asInt().orElse(DEFAULTS.maxHealthConnections),
                server.get("max-concurrent-calls").asInt().orElse(DEFAULTS.maxConcurrentCalls),
                Duration.ofSeconds(server.get("bind-timeout-seconds").asLong().orElse(DEFAULTS.bindTimeout.toSeconds())));
    }

    private static void positive(String key, int value) {
        if (value < 1) {
            throw new IllegalArgumentException(key + " must be at least 1, is " + value);
        }
    }
}
