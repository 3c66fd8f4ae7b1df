package pillar.controller.agent;

import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.logging.Logger;

import io.grpc.ChannelCredentials;
import io.grpc.ConnectivityState;
import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import pillar.api.agent.v1.AgentServiceGrpc;
import pillar.api.agent.v1.AllowInitiatorRequest;
import pillar.api.agent.v1.AllowInitiatorResponse;
import pillar.api.agent.v1.CreateVolumeRequest;
import pillar.api.agent.v1.CreateVolumeResponse;
import pillar.api.agent.v1.DeleteVolumeRequest;
import pillar.api.agent.v1.DeleteVolumeResponse;
import pillar.api.agent.v1.DenyInitiatorRequest;
import pillar.api.agent.v1.DenyInitiatorResponse;
import pillar.api.agent.v1.ExpandVolumeRequest;
import pillar.api.agent.v1.ExpandVolumeResponse;
import pillar.api.agent.v1.ExportVolumeRequest;
import pillar.api.agent.v1.ExportVolumeResponse;
import pillar.api.agent.v1.GetCapabilitiesRequest;
import pillar.api.agent.v1.GetCapabilitiesResponse;
import pillar.api.agent.v1.GetCapacityRequest;
import pillar.api.agent.v1.GetCapacityResponse;
import pillar.api.agent.v1.ListExportsRequest;
import pillar.api.agent.v1.ListExportsResponse;
import pillar.api.agent.v1.ListVolumesRequest;
import pillar.api.agent.v1.ListVolumesResponse;
import pillar.api.agent.v1.UnexportVolumeRequest;
import pillar.api.agent.v1.UnexportVolumeResponse;

/**
 * {@link AgentClient} over gRPC: one channel per agent target, kept and reused (gRPC reconnects
 * it; one whose agent was down tries again as soon as it is called); every call with a deadline;
 * reads retried, with a growing pause, while the agent is unreachable; gRPC status codes mapped to
 * {@link AgentException.Kind}.
 *
 * <p>Mutual TLS reads the controller's PEM files; when they change on disk (cert-manager renews
 * the Secret), the next call builds new credentials and new channels.
 */
public final class GrpcAgentClient implements AgentClient, AutoCloseable {
    private static final Logger LOG = Logger.getLogger(GrpcAgentClient.class.getName());
    /** How long a call waits for a channel that failed to connect to try again (within the call's deadline). */
    private static final Duration RECONNECT_WAIT = Duration.ofSeconds(1);

    /**
     * @param deadline     the deadline of each attempt of each call
     * @param readAttempts how often a read is tried while the agent is unreachable (at least 1)
     * @param retryPause   the pause after the first failed attempt; it grows linearly
     */
    public record Settings(Duration deadline, int readAttempts, Duration retryPause) {
        public Settings {
            if (deadline.isNegative() || deadline.isZero()) {
                throw new IllegalArgumentException("agents.deadline must be positive, is " + deadline);
            }
            if (readAttempts < 1 || readAttempts > 10) {
                throw new IllegalArgumentException("agents.read-attempts must be 1 to 10, is " + readAttempts);
            }
            if (retryPause.isNegative()) {
                throw new IllegalArgumentException("agents.retry-pause must not be negative, is " + retryPause);
            }
        }

        /** 10 s per attempt, 3 attempts of a read, 200 ms then 400 ms between them. */
        public static Settings defaults() {
            return new Settings(Duration.ofSeconds(10), 3, Duration.ofMillis(200));
        }
    }

    private final Settings settings;
    private final Optional<TlsCredentials> tls;
    private final Map<AgentTarget, CachedChannel> channels = new ConcurrentHashMap<>();

    /** @throws IllegalArgumentException when the TLS files cannot be read as PEM */
    public GrpcAgentClient(Optional<AgentTlsFiles> tls, Settings settings) {
        this.settings = settings;
        this.tls = tls.map(TlsCredentials::new);
    }

    @Override
    public GetCapabilitiesResponse getCapabilities(AgentTarget agent, GetCapabilitiesRequest request) {
        return read(agent, "GetCapabilities", stub -> stub.getCapabilities(request));
    }

    @Override
    public GetCapacityResponse getCapacity(AgentTarget agent, GetCapacityRequest request) {
        return read(agent, "GetCapacity", stub -> stub.getCapacity(request));
    }

    @Override
    public CreateVolumeResponse createVolume(AgentTarget agent, CreateVolumeRequest request) {
        return once(agent, "CreateVolume", stub -> stub.createVolume(request));
    }

    @Override
    public DeleteVolumeResponse deleteVolume(AgentTarget agent, DeleteVolumeRequest request) {
        return once(agent, "DeleteVolume", stub -> stub.deleteVolume(request));
    }

    @Override
    public ExpandVolumeResponse expandVolume(AgentTarget agent, ExpandVolumeRequest request) {
        return once(agent, "ExpandVolume", stub -> stub.expandVolume(request));
    }

    @Override
    public ExportVolumeResponse exportVolume(AgentTarget agent, ExportVolumeRequest request) {
        return once(agent, "ExportVolume", stub -> stub.exportVolume(request));
    }

    @Override
    public UnexportVolumeResponse unexportVolume(AgentTarget agent, UnexportVolumeRequest request) {
        return once(agent, "UnexportVolume", stub -> stub.unexportVolume(request));
    }

    @Override
    public AllowInitiatorResponse allowInitiator(AgentTarget agent, AllowInitiatorRequest request) {
        return once(agent, "AllowInitiator", stub -> stub.allowInitiator(request));
    }

    @Override
    public DenyInitiatorResponse denyInitiator(AgentTarget agent, DenyInitiatorRequest request) {
        return once(agent, "DenyInitiator", stub -> stub.denyInitiator(request));
    }

    @Override
    public ListVolumesResponse listVolumes(AgentTarget agent, ListVolumesRequest request) {
        return read(agent, "ListVolumes", stub -> stub.listVolumes(request));
    }

    @Override
    public ListExportsResponse listExports(AgentTarget agent, ListExportsRequest request) {
        return read(agent, "ListExports", stub -> stub.listExports(request));
    }

    /** The number of channels held, one per agent target called. */
    int channelCount() {
        return channels.size();
    }

    @Override
    public void close() {
        channels.values().forEach(c -> c.channel().shutdownNow());
        for (CachedChannel c : channels.values()) {
            try {
                c.channel().awaitTermination(5, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
        channels.clear();
    }

    /** A read: retried while the agent is unreachable, up to {@link Settings#readAttempts()}. */
    private <T> T read(AgentTarget agent, String rpc, Function<AgentServiceGrpc.AgentServiceBlockingStub, T> call) {
        for (int attempt = 1; ; attempt++) {
            try {
                return once(agent, rpc, call);
            } catch (AgentException e) {
                if (e.kind() != AgentException.Kind.UNREACHABLE || attempt >= settings.readAttempts()) {
                    throw e;
                }
                LOG.fine(() -> e.getMessage() + "; trying again");
                pause(settings.retryPause().multipliedBy(attempt), e);
            }
        }
    }

    /** One attempt, with the deadline: every mutation (never retried here; its caller's logic is idempotent and fenced). */
    private <T> T once(AgentTarget agent, String rpc, Function<AgentServiceGrpc.AgentServiceBlockingStub, T> call) {
        ManagedChannel channel = channel(agent, rpc);
        AgentServiceGrpc.AgentServiceBlockingStub stub = AgentServiceGrpc.newBlockingStub(channel)
                .withDeadlineAfter(settings.deadline().toMillis(), TimeUnit.MILLISECONDS);
        reconnectNow(channel);
        try {
            return call.apply(stub);
        } catch (StatusRuntimeException e) {
            if (e.getStatus().getCode() == Status.Code.UNAVAILABLE) {
                // the caller paces its retries; gRPC's own reconnect backoff (up to 2 min) must not delay them
                channel.resetConnectBackoff();
            }
            String description = e.getStatus().getDescription();
            String detail = e.getStatus().getCode() + (description == null ? "" : ": " + description)
                    + (e.getStatus().getCause() == null ? "" : " (" + e.getStatus().getCause() + ")");
            throw new AgentException(AgentException.Kind.of(e.getStatus().getCode()), rpc, agent, detail, e);
        }
    }

    /**
     * A channel whose last connection attempt failed (the agent was down) fails every call at once with
     * that attempt's error until its next attempt, which gRPC's backoff may put minutes away: an agent
     * back by then would be refused calls it could answer. Such a channel tries again now, and the call
     * waits briefly for it to connect; if it does not, the call fails at once as before, with the error.
     */
    private void reconnectNow(ManagedChannel channel) {
        ConnectivityState state = channel.getState(false);
        if (state != ConnectivityState.TRANSIENT_FAILURE) {
            return; // READY, or IDLE and CONNECTING: the call itself waits for the attempt's outcome
        }
        channel.resetConnectBackoff();
        Duration wait = settings.deadline().compareTo(RECONNECT_WAIT) < 0 ? settings.deadline() : RECONNECT_WAIT;
        long deadline = System.nanoTime() + wait.toNanos();
        try {
            while (state != ConnectivityState.READY && state != ConnectivityState.SHUTDOWN) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return;
                }
                CountDownLatch changed = new CountDownLatch(1);
                channel.notifyWhenStateChanged(state, changed::countDown);
                changed.await(left, TimeUnit.NANOSECONDS);
                state = channel.getState(false);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private ManagedChannel channel(AgentTarget agent, String rpc) {
        long epoch;
        ChannelCredentials credentials;
        if (agent.security() == AgentTarget.Security.MUTUAL_TLS) {
            TlsCredentials files = tls.orElseThrow(() -> new AgentException(AgentException.Kind.FAILED, rpc, agent,
                    "the agent asks for mutual TLS but the controller has no agents.tls files (cert, key, ca)"));
            TlsCredentials.Current current = files.current();
            epoch = current.epoch();
            credentials = current.credentials();
        } else {
            epoch = 0;
            credentials = InsecureChannelCredentials.create();
        }
        CachedChannel cached = channels.compute(agent, (target, old) -> {
            if (old != null && old.epoch() == epoch) {
                return old;
            }
            if (old != null) {
                LOG.info(() -> "the agents.tls files changed: reconnecting to " + target);
                old.channel().shutdown();
            }
            ManagedChannelBuilder<?> builder = Grpc.newChannelBuilderForAddress(target.host(), target.port(), credentials);
            target.serverName().ifPresent(builder::overrideAuthority);
            return new CachedChannel(builder.idleTimeout(5, TimeUnit.MINUTES).build(), epoch);
        });
        return cached.channel();
    }

    private static void pause(Duration pause, AgentException failure) {
        try {
            Thread.sleep(pause);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw failure;
        }
    }

    private record CachedChannel(ManagedChannel channel, long epoch) {
    }
}
