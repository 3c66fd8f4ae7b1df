package pillar.controller.agent;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import pillar.api.agent.v1.AllowInitiatorRequest;
import pillar.api.agent.v1.AllowInitiatorResponse;
import pillar.api.agent.v1.CreateSnapshotRequest;
import pillar.api.agent.v1.CreateSnapshotResponse;
import pillar.api.agent.v1.AdoptVolumeRequest;
import pillar.api.agent.v1.AdoptVolumeResponse;
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
 * Puts faults between the controller and any agent (the stateful fake, or the real agent over
 * gRPC), per RPC: fail before the call (it never reached the agent), fail after it (it took effect
 * but the answer was lost: the controller may have crashed right then), or hold it until released
 * (it reaches the agent late, as a deposed leader's call does); or answer ABORTED without reaching it,
 * as an agent does while a volume's operation runs on ({@link #busy}).
 */
public final class FaultInjectingAgentClient implements AgentClient {
    /** Where an injected fault strikes. */
    public enum Fault {
        /** Nothing happens; the caller sees UNREACHABLE. */
        BEFORE,
        /** The call takes effect; the caller sees TIMED_OUT. */
        AFTER
    }

    /** A held call: {@link #arrived()} waits until it is held; {@link #release()} lets it reach the agent. */
    public static final class Hold {
        private final CountDownLatch arrival = new CountDownLatch(1);
        private final CountDownLatch release = new CountDownLatch(1);

        public boolean arrived() throws InterruptedException {
            return arrival.await(30, TimeUnit.SECONDS);
        }

        public void release() {
            release.countDown();
        }

        void await() {
            arrival.countDown();
            try {
                if (!release.await(60, TimeUnit.SECONDS)) {
                    throw new IllegalStateException("a held call was never released");
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private final AgentClient agent;
    private final Map<String, Deque<Fault>> faults = new HashMap<>();
    private final Map<String, Hold> holds = new HashMap<>();
    private final Map<String, Deque<String>> busy = new HashMap<>();

    public FaultInjectingAgentClient(AgentClient agent) {
        this.agent = agent;
    }

    /** The next call of that RPC fails as said (faults of one RPC queue up in order). */
    public synchronized FaultInjectingAgentClient fail(String rpc, Fault fault) {
        faults.computeIfAbsent(rpc, r -> new ArrayDeque<>()).add(fault);
        return this;
    }

    /**
     * The next call of that RPC does not reach the agent and answers ABORTED with {@code message}, as an
     * agent does while an operation on the volume runs on (a linear clone's background copy).
     */
    public synchronized FaultInjectingAgentClient busy(String rpc, String message) {
        busy.computeIfAbsent(rpc, r -> new ArrayDeque<>()).add(message);
        return this;
    }

    /** The next call of that RPC waits until the hold is released, then goes on to the agent. */
    public synchronized Hold hold(String rpc) {
        Hold hold = new Hold();
        holds.put(rpc, hold);
        return hold;
    }

    private <T> T call(AgentTarget target, String rpc, Supplier<T> call) {
        Hold hold;
        Fault fault;
        String running;
        synchronized (this) {
            Deque<String> answers = busy.get(rpc);
            running = answers == null ? null : answers.poll();
            hold = holds.remove(rpc);
            Deque<Fault> queue = faults.get(rpc);
            fault = queue == null ? null : queue.poll();
        }
        if (hold != null) {
            hold.await();
        }
        if (running != null) {
            throw new AgentException(AgentException.Kind.BUSY, rpc, target, "ABORTED: " + running);
        }
        if (fault == Fault.BEFORE) {
            throw new AgentException(AgentException.Kind.UNREACHABLE, rpc, target, "UNAVAILABLE: injected: the call never arrived");
        }
        T result = call.get();
        if (fault == Fault.AFTER) {
            throw new AgentException(AgentException.Kind.TIMED_OUT, rpc, target, "DEADLINE_EXCEEDED: injected: the answer was lost");
        }
        return result;
    }

    @Override
    public GetCapabilitiesResponse getCapabilities(AgentTarget target, GetCapabilitiesRequest request) {
        return call(target, "GetCapabilities", () -> agent.getCapabilities(target, request));
    }

    @Override
    public GetCapacityResponse getCapacity(AgentTarget target, GetCapacityRequest request) {
        return call(target, "GetCapacity", () -> agent.getCapacity(target, request));
    }

    @Override
    public AdoptVolumeResponse adoptVolume(AgentTarget target, AdoptVolumeRequest request) {
        return call(target, "AdoptVolume", () -> agent.adoptVolume(target, request));
    }

    @Override
    public CreateVolumeResponse createVolume(AgentTarget target, CreateVolumeRequest request) {
        return call(target, "CreateVolume", () -> agent.createVolume(target, request));
    }

    @Override
    public DeleteVolumeResponse deleteVolume(AgentTarget target, DeleteVolumeRequest request) {
        return call(target, "DeleteVolume", () -> agent.deleteVolume(target, request));
    }

    @Override
    public ExpandVolumeResponse expandVolume(AgentTarget target, ExpandVolumeRequest request) {
        return call(target, "ExpandVolume", () -> agent.expandVolume(target, request));
    }

    @Override
    public ExportVolumeResponse exportVolume(AgentTarget target, ExportVolumeRequest request) {
        return call(target, "ExportVolume", () -> agent.exportVolume(target, request));
    }

    @Override
    public UnexportVolumeResponse unexportVolume(AgentTarget target, UnexportVolumeRequest request) {
        return call(target, "UnexportVolume", () -> agent.unexportVolume(target, request));
    }

    @Override
    public AllowInitiatorResponse allowInitiator(AgentTarget target, AllowInitiatorRequest request) {
        return call(target, "AllowInitiator", () -> agent.allowInitiator(target, request));
    }

    @Override
    public DenyInitiatorResponse denyInitiator(AgentTarget target, DenyInitiatorRequest request) {
        return call(target, "DenyInitiator", () -> agent.denyInitiator(target, request));
    }

    @Override
    public ReconcileResponse reconcile(AgentTarget target, ReconcileRequest request) {
        return call(target, "Reconcile", () -> agent.reconcile(target, request));
    }

    @Override
    public ListVolumesResponse listVolumes(AgentTarget target, ListVolumesRequest request) {
        return call(target, "ListVolumes", () -> agent.listVolumes(target, request));
    }

    @Override
    public ListExportsResponse listExports(AgentTarget target, ListExportsRequest request) {
        return call(target, "ListExports", () -> agent.listExports(target, request));
    }

    @Override
    public GetVolumeHealthResponse getVolumeHealth(AgentTarget target, GetVolumeHealthRequest request) {
        return call(target, "GetVolumeHealth", () -> agent.getVolumeHealth(target, request));
    }

    @Override
    public GetVolumesHealthResponse getVolumesHealth(AgentTarget target, GetVolumesHealthRequest request) {
        return call(target, "GetVolumesHealth", () -> agent.getVolumesHealth(target, request));
    }

    @Override
    public CreateSnapshotResponse createSnapshot(AgentTarget target, CreateSnapshotRequest request) {
        return call(target, "CreateSnapshot", () -> agent.createSnapshot(target, request));
    }

    @Override
    public DeleteSnapshotResponse deleteSnapshot(AgentTarget target, DeleteSnapshotRequest request) {
        return call(target, "DeleteSnapshot", () -> agent.deleteSnapshot(target, request));
    }

    @Override
    public ListSnapshotsResponse listSnapshots(AgentTarget target, ListSnapshotsRequest request) {
        return call(target, "ListSnapshots", () -> agent.listSnapshots(target, request));
    }
}
