package pillar.runtime.server;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.UnixDomainSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.BooleanSupplier;
import java.util.logging.Logger;

import io.grpc.BindableService;
import io.helidon.common.tls.Tls;
import io.helidon.health.HealthCheckResponse;
import io.helidon.health.HealthCheckType;
import io.helidon.http.HeaderNames;
import io.helidon.webserver.WebServer;
import io.helidon.webserver.WebServerConfig;
import io.helidon.webserver.grpc.GrpcRouting;
import io.helidon.webserver.observe.ObserveFeature;
import io.helidon.webserver.observe.health.HealthObserver;
import io.helidon.webserver.observe.health.HealthObserverConfig;
import pillar.runtime.metrics.OperationTimer;
import pillar.runtime.metrics.WorkloadMetrics;

/**
 * One workload's Helidon server: its gRPC services on one endpoint (a UNIX socket for CSI, TCP for
 * the agent API, optionally with TLS), and liveness and readiness over HTTP on another port
 * ({@code /observe/health/live}, {@code /observe/health/ready}), with the workload's Prometheus
 * metrics at {@code /metrics} when it has {@linkplain Builder#metrics enabled metrics}.
 */
public final class WorkloadServer implements AutoCloseable {
    private static final Logger LOG = Logger.getLogger(WorkloadServer.class.getName());
    private static final String GRPC_SOCKET = "grpc";

    private final WebServer server;
    private final Optional<Path> unixSocket;
    private final List<Runnable> onClose;

    private WorkloadServer(WebServer server, Optional<Path> unixSocket, List<Runnable> onClose) {
        this.server = server;
        this.unixSocket = unixSocket;
        this.onClose = onClose;
    }

    public static Builder builder() {
        return new Builder();
    }

    /** The HTTP port of the health endpoints. */
    public int healthPort() {
        return server.port();
    }

    /** The TCP port gRPC listens on; meaningless for a UNIX socket. */
    public int grpcPort() {
        return server.port(GRPC_SOCKET);
    }

    /** Whether the gRPC endpoint's connections have Nagle's algorithm off (it matters on TCP only). */
    boolean grpcNoDelay() {
        return server.prototype().sockets().get(GRPC_SOCKET).connectionOptions().tcpNoDelay();
    }

    public Optional<Path> unixSocket() {
        return unixSocket;
    }

    public boolean isRunning() {
        return server.isRunning();
    }

    /** Stops serving, removes the UNIX socket, then runs the {@linkplain Builder#onClose close actions}. */
    @Override
    public void close() {
        server.stop();
        unixSocket.ifPresent(socket -> {
            try {
                Files.deleteIfExists(socket);
            } catch (IOException e) {
                LOG.warning("could not remove socket " + socket + ": " + e.getMessage());
            }
        });
        for (Runnable action : onClose) {
            try {
                action.run();
            } catch (RuntimeException e) {
                LOG.warning("a close action failed: " + e);
            }
        }
    }

    /** Builds and starts a {@link WorkloadServer}. */
    public static final class Builder {
        private final List<BindableService> services = new ArrayList<>();
        private final Map<String, BooleanSupplier> readiness = new LinkedHashMap<>();
        private final List<Runnable> onClose = new ArrayList<>();
        private SocketAddress grpcAddress;
        private Path unixSocket;
        private Tls tls;
        private String healthHost = "0.0.0.0";
        private int healthPort;
        private WorkloadMetrics metrics;
        private ServerLimits limits = ServerLimits.DEFAULTS;

        private Builder() {
        }

        /** Serve gRPC on a UNIX socket; a stale socket file from an earlier run is replaced. */
        public Builder unixSocket(Path socket) {
            this.unixSocket = socket.toAbsolutePath();
            this.grpcAddress = UnixDomainSocketAddress.of(this.unixSocket);
            return this;
        }

        /** Serve gRPC on TCP. Port 0 picks a free port. */
        public Builder tcp(String host, int port) {
            this.unixSocket = null;
            this.grpcAddress = new InetSocketAddress(host, port);
            return this;
        }

        /** TLS (and, with client auth required, mTLS) on the gRPC endpoint. */
        public Builder tls(Tls tls) {
            this.tls = tls;
            return this;
        }

        /** Where the HTTP health endpoints listen. Port 0 picks a free port. */
        public Builder health(String host, int port) {
            this.healthHost = host;
            this.healthPort = port;
            return this;
        }

        /** Serve these metrics at {@code /metrics} on the health port and time every call into them. */
        public Builder metrics(WorkloadMetrics metrics) {
            this.metrics = metrics;
            return this;
        }

        /** The bounds on connections, concurrent calls and the wait for a port in use ({@link ServerLimits#DEFAULTS} unless set). */
        public Builder limits(ServerLimits limits) {
            this.limits = limits;
            return this;
        }

        public Builder service(BindableService service) {
            services.add(service);
            return this;
        }

        /** A readiness check: the workload is ready when every check answers true. */
        public Builder readiness(String name, BooleanSupplier check) {
            readiness.put(name, check);
            return this;
        }

        /** Something the workload stops when the server is closed (a background thread): run after it stops serving, in order. */
        public Builder onClose(Runnable action) {
            onClose.add(action);
            return this;
        }

        public WorkloadServer start() {
            if (grpcAddress == null) {
                throw new IllegalStateException("no gRPC endpoint configured");
            }
            if (unixSocket != null) {
                prepareSocketPath(unixSocket);
            }
            // the first interceptor added runs first: a call over the limit is refused before it is timed or logged
            GrpcRouting.Builder grpc = GrpcRouting.builder().intercept(new CallLimit(limits.maxConcurrentCalls()))
                    .intercept(new VolumeLogContext());
            boolean served = metrics != null && metrics.enabled();
            if (served) {
                grpc.intercept(new OperationTimer(metrics));
            }
            services.forEach(grpc::service);

            HealthObserverConfig.Builder health = HealthObserver.builder().details(true).useSystemServices(false);
            health.addCheck(() -> HealthCheckResponse.builder().status(true).build(), HealthCheckType.LIVENESS,
                    "alive");
            readiness.forEach((name, check) -> health.addCheck(
                    () -> HealthCheckResponse.builder().status(check.getAsBoolean()).build(),
                    HealthCheckType.READINESS, name));

            WebServerConfig.Builder config = WebServer.builder()
                    .host(healthHost)
                    .port(healthPort)
                    .maxTcpConnections(limits.maxHealthConnections())
                    .addFeature(ObserveFeature.builder().addObserver(health.build()).build())
                    .routing(routing -> {
                        if (served) {
                            routing.get(WorkloadMetrics.PATH, (request, response) -> {
                                response.header(HeaderNames.CONTENT_TYPE, WorkloadMetrics.contentType());
                                try (java.io.OutputStream out = response.outputStream()) {
                                    metrics.write(out);
                                }
                            });
                        }
                    })
                    .putSocket(GRPC_SOCKET, socket -> {
                        socket.bindAddress(grpcAddress).addRouting(grpc).maxTcpConnections(limits.maxConnections());
                        if (grpcAddress instanceof InetSocketAddress) {
                            // Helidon leaves Nagle's algorithm on: a reply's HTTP/2 frames, written apart, then
                            // waited for the caller's delayed ACK, ~40 ms on every agent call
                            socket.connectionOptions(options -> options.tcpNoDelay(true));
                        }
                        if (tls != null) {
                            socket.tls(tls);
                        }
                    });
            return new WorkloadServer(listen(config), Optional.ofNullable(unixSocket), List.copyOf(onClose));
        }

        /**
         * Starts the server once its TCP addresses are free ({@link FreeAddresses}), within the limits'
         * bind timeout. Helidon only logs a listener it cannot bind and returns a server that is not
         * running; that is retried until the timeout, then a {@link ListenException}: never a workload
         * that carries on without its endpoints.
         */
        private WebServer listen(WebServerConfig.Builder config) {
            long deadline = System.nanoTime() + limits.bindTimeout().toNanos();
            List<InetSocketAddress> addresses = new ArrayList<>();
            addresses.add(new InetSocketAddress(healthHost, healthPort));
            if (grpcAddress instanceof InetSocketAddress tcp) {
                addresses.add(tcp);
            }
            FreeAddresses free = new FreeAddresses(PortHolder.system());
            while (true) {
                free.await(addresses, deadline);
                WebServer server = config.build().start();
                if (server.isRunning()) {
                    return server;
                }
                server.stop();
                if (System.nanoTime() - deadline >= 0) {
                    throw new ListenException("the server could not start its listeners on " + addresses
                            + (unixSocket != null ? " and " + unixSocket : "") + " within " + limits.bindTimeout().toSeconds()
                            + " s; the log above says why");
                }
                LOG.warning("the server could not start its listeners on " + addresses + "; trying again");
                try {
                    Thread.sleep(FreeAddresses.POLL);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new ListenException("interrupted while starting the server");
                }
            }
        }

        private static void prepareSocketPath(Path socket) {
            try {
                Files.createDirectories(socket.getParent());
                // a socket left by a crashed run would make bind fail with EADDRINUSE
                Files.deleteIfExists(socket);
            } catch (IOException e) {
                throw new UncheckedIOException("cannot prepare the socket " + socket, e);
            }
        }
    }
}
