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
import io.grpc.Context;
import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import pillar.api.agent.AgentErrors;
import pillar.api.agent.HealthBatch;
import pillar.api.agent.v1.AgentServiceGrpc;
import pillar.api.agent.v1.AllowInitiatorRequest;
import pillar.api.agent.v1.AllowInitiatorResponse;
import pillar.api.agent.v1.AdoptVolumeRequest;
import pillar.api.agent.v1.AdoptVolumeResponse;
import pillar.api.agent.v1.CreateSnapshotRequest;
import pillar.api.agent.v1.CreateSnapshotResponse;
import pillar.api.agent.v1.CreateVolumeRequest;
import pillar.api.agent.v1.CreateVolumeResponse;
import pillar.api.agent.v1.DeleteSnapshotRequest;
import pillar.api.agent.v1.DeleteSnapshotResponse;
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
import pillar.api.agent.v1.GetVolumeHealthRequest;
import pillar.api.agent.v1.GetVolumeHealthResponse;
import pillar.api.agent.v1.GetVolumesHealthRequest;
import pillar.api.agent.v1.GetVolumesHealthResponse;
import pillar.api.agent.v1.ListExportsRequest;
import pillar.api.agent.v1.ListExportsResponse;
import pillar.api.agent.v1.ListSnapshotsRequest;
import pillar.api.agent.v1.ListSnapshotsResponse;
import pillar.api.agent.v1.ListVolumesRequest;
import pillar.api.agent.v1.ListVolumesResponse;
import pillar.api.agent.v1.ReconcileRequest;
import pillar.api.agent.v1.ReconcileResponse;
import pillar.api.agent.v1.UnexportVolumeRequest;
import pillar.api.agent.v1.UnexportVolumeResponse;

/**
 * {@link AgentClient} over gRPC: one channel per agent target, kept and reused (gRPC reconnects
 * it; one whose agent was down tries again as soon as it is called); every call with a deadline,
 * a read's ({@link Settings#deadline()}, 10 s) or a mutation's ({@link Settings#mutationDeadline()},
 * 120 s, longer than the agent's own bound of 90 s); reads retried, with a growing pause, while the
 * agent is unreachable; gRPC status codes mapped to {@link AgentException.Kind}.
 *
 * <p>Each call runs with the controller's own deadline only: it is not cancelled, nor shortened,
 * by the deadline or cancellation of the CSI call it serves (the sidecars give up after their
 * {@code --timeout} and send the call again). A mutation the controller abandoned half-way would
 * leave its outcome unrecorded while the agent completes it; run to its end, the outcome is recorded
 * on the volume's state, and the sidecar's repeated call, ABORTED while the volume is held, then
 * finds it.
 *
 * <p>Mutual TLS reads the controller's PEM files; when they change on disk (cert-manager renews
 * the Secret), the next call builds new credentials and new channels. It verifies the agent's
 * certificate against the target's server name (else its host): an agent presenting another
 * storage node's certificate fails the handshake (UNREACHABLE). A target verified by a name of the
 * controller's own certificate is refused (FAILED) without dialling.
 */
public final class GrpcAgentClient implements AgentClient, AutoCloseable {
    private static final Logger LOG = Logger.getLogger(GrpcAgentClient.class.getName());
    /** How long a call waits for a channel that failed to connect to try again (within the call's deadline). */
    private static final Duration RECONNECT_WAIT = Duration.ofSeconds(1);

    /**
     * @param deadline         the deadline of each attempt of a read
     * @param mutationDeadline the deadline of a call that changes anything: longer than the agent's own
     *                         bound on a call ({@link #AGENT_CALL_BOUND}), so that the agent, not the
     *                         controller, decides when a slow kernel step has failed, and its answer
     *                         (success or the error) is what the controller records
     * @param readAttempts     how often a read is tried while the agent is unreachable (at least 1)
     * @param retryPause       the pause after the first failed attempt; it grows linearly
     */
    public record Settings(Duration deadline, Duration mutationDeadline, int readAttempts, Duration retryPause) {
        public Settings {
            positive("agents.deadline", deadline);
            positive("agents.mutation-deadline", mutationDeadline);
            if (readAttempts < 1 || readAttempts > 10) {
                throw new IllegalArgumentException("agents.read-attempts must be 1 to 10, is " + readAttempts);
            }
            if (retryPause.isNegative()) {
                throw new IllegalArgumentException("agents.retry-pause must not be negative, is " + retryPause);
            }
        }

        /** Reads: 10 s per attempt, 3 attempts, 200 ms then 400 ms between them; mutations: 120 s, once. */
        public static Settings defaults() {
            return new Settings(Duration.ofSeconds(10), Duration.ofSeconds(120), 3, Duration.ofMillis(200));
        }

        private static void positive(String key, Duration value) {
            if (value.isNegative() || value.isZero()) {
                throw new IllegalArgumentException(key + " must be positive, is " + value);
            }
        }
    }

    /**
     * How long the agent lets one call run before it answers with an error (pillar-agent's bound on
     * every call, kernel waits included). A mutation deadline must be longer.
     */
    public static final Duration AGENT_CALL_BOUND = Duration.ofSeconds(90);

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
        return mutate(agent, "CreateVolume", stub -> stub.createVolume(request));
    }

    @Override
    public AdoptVolumeResponse adoptVolume(AgentTarget agent, AdoptVolumeRequest request) {
        return mutate(agent, "AdoptVolume", stub -> stub.adoptVolume(request));
    }

    @Override
    public DeleteVolumeResponse deleteVolume(AgentTarget agent, DeleteVolumeRequest request) {
        return mutate(agent, "DeleteVolume", stub -> stub.deleteVolume(request));
    }

    @Override
    public ExpandVolumeResponse expandVolume(AgentTarget agent, ExpandVolumeRequest request) {
        return mutate(agent, "ExpandVolume", stub -> stub.expandVolume(request));
    }

    @Override
    public ExportVolumeResponse exportVolume(AgentTarget agent, ExportVolumeRequest request) {
        return mutate(agent, "ExportVolume", stub -> stub.exportVolume(request));
    }

    @Override
    public UnexportVolumeResponse unexportVolume(AgentTarget agent, UnexportVolumeRequest request) {
        return mutate(agent, "UnexportVolume", stub -> stub.unexportVolume(request));
    }

    @Override
    public AllowInitiatorResponse allowInitiator(AgentTarget agent, AllowInitiatorRequest request) {
        return mutate(agent, "AllowInitiator", stub -> stub.allowInitiator(request));
    }

    @Override
    public DenyInitiatorResponse denyInitiator(AgentTarget agent, DenyInitiatorRequest request) {
        return mutate(agent, "DenyInitiator", stub -> stub.denyInitiator(request));
    }

    @Override
    public ReconcileResponse reconcile(AgentTarget agent, ReconcileRequest request) {
        return mutate(agent, "Reconcile", stub -> stub.reconcile(request));
    }

    @Override
    public ListVolumesResponse listVolumes(AgentTarget agent, ListVolumesRequest request) {
        return read(agent, "ListVolumes", stub -> stub.listVolumes(request));
    }

    @Override
    public ListExportsResponse listExports(AgentTarget agent, ListExportsRequest request) {
        return read(agent, "ListExports", stub -> stub.listExports(request));
    }

    @Override
    public GetVolumeHealthResponse getVolumeHealth(AgentTarget agent, GetVolumeHealthRequest request) {
        return once(agent, "GetVolumeHealth", settings.deadline(), stub -> stub.getVolumeHealth(request));
    }

    /**
     * Once, with the read deadline for each {@link HealthBatch#AT_ONCE} entries (the agent reads that many at
     * a time, as the per-volume calls it replaces ran), at most the mutation deadline.
     */
    @Override
    public GetVolumesHealthResponse getVolumesHealth(AgentTarget agent, GetVolumesHealthRequest request) {
        Duration deadline = settings.deadline().multipliedBy(HealthBatch.rounds(request.getVolumesCount()));
        return once(agent, "GetVolumesHealth", deadline.compareTo(settings.mutationDeadline()) > 0 ? settings.mutationDeadline()
                : deadline, stub -> stub.getVolumesHealth(request));
    }

    @Override
    public CreateSnapshotResponse createSnapshot(AgentTarget agent, CreateSnapshotRequest request) {
        return mutate(agent, "CreateSnapshot", stub -> stub.createSnapshot(request));
    }

    @Override
    public DeleteSnapshotResponse deleteSnapshot(AgentTarget agent, DeleteSnapshotRequest request) {
        return mutate(agent, "DeleteSnapshot", stub -> stub.deleteSnapshot(request));
    }

    @Override
    public ListSnapshotsResponse listSnapshots(AgentTarget agent, ListSnapshotsRequest request) {
        return read(agent, "ListSnapshots", stub -> stub.listSnapshots(request));
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
                return once(agent, rpc, settings.deadline(), call);
            } catch (AgentException e) {
                if (e.kind() != AgentException.Kind.UNREACHABLE || attempt >= settings.readAttempts()) {
                    throw e;
                }
                LOG.fine(() -> e.getMessage() + "; trying again");
                pause(settings.retryPause().multipliedBy(attempt), e);
            }
        }
    }

    /** A mutation: one attempt with the mutation deadline (never retried here; its caller's logic is idempotent and fenced). */
    private <T> T mutate(AgentTarget agent, String rpc, Function<AgentServiceGrpc.AgentServiceBlockingStub, T> call) {
        return once(agent, rpc, settings.mutationDeadline(), call);
    }

    /** One attempt with that deadline, in a context of its own (the CSI call's deadline and cancellation do not reach it). */
    private <T> T once(AgentTarget agent, String rpc, Duration deadline, Function<AgentServiceGrpc.AgentServiceBlockingStub, T> call) {
        ManagedChannel channel = channel(agent, rpc);
        AgentServiceGrpc.AgentServiceBlockingStub stub = AgentServiceGrpc.newBlockingStub(channel)
                .withDeadlineAfter(deadline.toMillis(), TimeUnit.MILLISECONDS);
        reconnectNow(channel, deadline);
        Context own = Context.current().fork();
        Context previous = own.attach();
        try {
            return call.apply(stub);
        } catch (StatusRuntimeException e) {
            if (e.getStatus().getCode() == Status.Code.UNAVAILABLE) {
                // the caller paces its retries; gRPC's own reconnect backoff (up to 2 min) must not delay them
                channel.resetConnectBackoff();
            }
            String description = e.getStatus().getDescription();
            String detail = e.getStatus().getCode() + (description == null ? "" : ": " + description)
                    + (e.getStatus().getCause() == null ? "" : " (" + e.getStatus().getCause() + ")")
                    + HandshakeFailures.reason(e.getStatus().getCause());
            throw new AgentException(AgentException.Kind.of(e.getStatus().getCode()), AgentErrors.reasonOf(e), rpc, agent, detail, e);
        } finally {
            own.detach(previous);
        }
    }

    /**
     * A channel whose last connection attempt failed (the agent was down) fails every call at once with
     * that attempt's error until its next attempt, which gRPC's backoff may put minutes away: an agent
     * back by then would be refused calls it could answer. Such a channel tries again now, and the call
     * waits briefly for it to connect; if it does not, the call fails at once as before, with the error.
     */
    private void reconnectNow(ManagedChannel channel, Duration callDeadline) {
        ConnectivityState state = channel.getState(false);
        if (state != ConnectivityState.TRANSIENT_FAILURE) {
            return; // READY, or IDLE and CONNECTING: the call itself waits for the attempt's outcome
        }
        channel.resetConnectBackoff();
        Duration wait = callDeadline.compareTo(RECONNECT_WAIT) < 0 ? callDeadline : RECONNECT_WAIT;
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
            String verified = agent.serverName().orElse(agent.host());
            if (current.ownNames().contains(verified)) {
                throw new AgentException(AgentException.Kind.FAILED, rpc, agent, "the agent would be verified by the name "
                        + verified + ", which the controller's own certificate (agents.tls cert) carries: the controller's"
                        + " key, or any certificate issued for the controller, would pass for this agent. Set the"
                        + " PillarAgent's tls.serverName to the name in this agent's own certificate");
            }
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
