package pillar.controller.agent;

import pillar.api.agent.v1.AdoptVolumeRequest;
import pillar.api.agent.v1.AdoptVolumeResponse;
import pillar.api.agent.v1.AllowInitiatorRequest;
import pillar.api.agent.v1.AllowInitiatorResponse;
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
 * The agent API as the controller calls it: one method per RPC of {@code pillar.agent.v1.AgentService},
 * taking the agent to call and the RPC's request, answering its response.
 *
 * <p>Contract of every method:
 * <ul>
 *   <li>it returns within its deadline: no call waits on an agent for ever;</li>
 *   <li>it fails only with {@link AgentException}, whose {@link AgentException.Kind} says what the
 *       agent (or the network) answered; the caller decides what to do with it;</li>
 *   <li>reads (GetCapabilities, GetCapacity, ListVolumes, ListExports) may be retried by the
 *       implementation when the agent was unreachable; a call that changes anything is sent once,
 *       and its caller retries it through its own idempotent, fenced logic;</li>
 *   <li>every call that changes a volume carries the volume's fencing token; the agent refuses a
 *       stale, foreign or missing one with {@link AgentException.Kind#FAILED_PRECONDITION} and
 *       changes nothing; a call that timed out may still have taken effect.</li>
 * </ul>
 * Adding an RPC here means adding it to {@link GrpcAgentClient} and to the tests' stateful fake.
 */
public interface AgentClient {
    /** The agent's version, its configured backends and its protocols. A read. */
    GetCapabilitiesResponse getCapabilities(AgentTarget agent, GetCapabilitiesRequest request);

    /**
     * Total and available bytes of one backend. A read. A backend the agent does not have fails
     * with {@link AgentException.Kind#INVALID_ARGUMENT}.
     */
    GetCapacityResponse getCapacity(AgentTarget agent, GetCapacityRequest request);

    /** Creates the zvol or LV; an existing one of the same size is returned (ALREADY_EXISTS for another size). */
    CreateVolumeResponse createVolume(AgentTarget agent, CreateVolumeRequest request);

    /**
     * Brings an existing zvol, dataset or LV under this installation (sets its ownership marks) and
     * answers it with its size; one this installation owns already is returned as it is. Missing:
     * NOT_FOUND; another installation's or open: FAILED_PRECONDITION with reason VOLUME_FOREIGN or
     * VOLUME_IN_USE; smaller than asked: OUT_OF_RANGE; an agent of before it: UNSUPPORTED.
     */
    AdoptVolumeResponse adoptVolume(AgentTarget agent, AdoptVolumeRequest request);

    /** Unexports and destroys the volume and ends its lifecycle; repeating it succeeds. */
    DeleteVolumeResponse deleteVolume(AgentTarget agent, DeleteVolumeRequest request);

    /** Grows the volume (a shrink is OUT_OF_RANGE); growing to its size again succeeds. */
    ExpandVolumeResponse expandVolume(AgentTarget agent, ExpandVolumeRequest request);

    /** Exports the volume (FAILED_PRECONDITION when it is exported otherwise); repeating it succeeds. */
    ExportVolumeResponse exportVolume(AgentTarget agent, ExportVolumeRequest request);

    /** Removes the volume's export; the volume stays. */
    UnexportVolumeResponse unexportVolume(AgentTarget agent, UnexportVolumeRequest request);

    /** Lets a host NQN connect to the volume's subsystem (a no-op when its ACL is disabled). */
    AllowInitiatorResponse allowInitiator(AgentTarget agent, AllowInitiatorRequest request);

    /** Stops a host NQN from connecting; a host that was never allowed is a no-op. */
    DenyInitiatorResponse denyInitiator(AgentTarget agent, DenyInitiatorRequest request);

    /**
     * Brings one volume's export to the desired one (its allowed hosts exactly those given; absent:
     * unexported); the changes made are in the answer. Sent once, like every change.
     */
    ReconcileResponse reconcile(AgentTarget agent, ReconcileRequest request);

    /** The volumes of one backend. A read. */
    ListVolumesResponse listVolumes(AgentTarget agent, ListVolumesRequest request);

    /** The exports the agent holds, with their drift. A read. */
    ListExportsResponse listExports(AgentTarget agent, ListExportsRequest request);

    /**
     * One volume's health (its zvol or LV, its export in the kernel, its pool). A read, tried once:
     * its caller (ControllerGetVolume, polled by the health monitor) reports an unreachable agent
     * as the answer rather than waiting through retries.
     */
    GetVolumeHealthResponse getVolumeHealth(AgentTarget agent, GetVolumeHealthRequest request);

    /**
     * Many volumes' health in one call (at most {@link pillar.api.agent.HealthBatch#MAX_ENTRIES}), each
     * entry answered as {@link #getVolumeHealth} would answer it, a failed one as its own result. A read,
     * tried once, for ListVolumes; an agent of before this call fails with
     * {@link AgentException.Kind#UNSUPPORTED}.
     */
    GetVolumesHealthResponse getVolumesHealth(AgentTarget agent, GetVolumesHealthRequest request);

    /**
     * Takes a snapshot of a volume, fenced by the snapshot's own token; the same snapshot again is
     * returned as it is (ALREADY_EXISTS for another source; FAILED_PRECONDITION when the backend
     * cannot take snapshots).
     */
    CreateSnapshotResponse createSnapshot(AgentTarget agent, CreateSnapshotRequest request);

    /** Destroys a snapshot (deferred while volumes made from it exist); repeating it succeeds. */
    DeleteSnapshotResponse deleteSnapshot(AgentTarget agent, DeleteSnapshotRequest request);

    /** The snapshots of one backend. A read. */
    ListSnapshotsResponse listSnapshots(AgentTarget agent, ListSnapshotsRequest request);
}
