package pillar.controller.reconcile;

import java.util.List;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.logging.Logger;

import pillar.api.agent.v1.Backend;
import pillar.api.agent.v1.GetCapabilitiesRequest;
import pillar.api.agent.v1.GetCapabilitiesResponse;
import pillar.api.agent.v1.GetCapacityRequest;
import pillar.api.agent.v1.GetCapacityResponse;
import pillar.api.agent.v1.ListExportsRequest;
import pillar.api.agent.v1.ListVolumesRequest;
import pillar.api.agent.v1.Problem;
import pillar.controller.agent.AgentClient;
import pillar.controller.agent.AgentException;
import pillar.controller.agent.AgentTarget;
import pillar.controller.crd.Condition;
import pillar.controller.crd.PillarAgent;
import pillar.controller.crd.PillarStore;
import pillar.controller.crd.PillarStoreSpec;
import pillar.controller.crd.PillarStoreStatus;
import pillar.controller.crd.PillarVolumeState;
import pillar.controller.crd.Reasons;
import pillar.controller.crd.SpecValidator;
import pillar.controller.crd.StoreCapacity;
import pillar.controller.reconcile.loop.ConditionRecorder;
import pillar.controller.reconcile.loop.ReconcileMeters;
import pillar.controller.reconcile.loop.Reconciler;
import pillar.controller.reconcile.loop.Result;
import pillar.controller.reconcile.loop.StatusWriter;

/**
 * Keeps {@code PoolDiscovered} true while the store's agent has a backend of the store's name with
 * the store's layout (GetCapabilities), and the pool's capacity (GetCapacity) in the status. Asked
 * again every poll interval, and whenever its PillarAgent changes.
 *
 * <p>A problem the agent reports makes it false with the agent's reason and message (and so a
 * Warning event): one of the whole agent (e.g. {@code AgentStateMissing}), or one of the store's
 * backend (e.g. {@code ThinPoolNotZeroing}). The one exception: a thin pool that does not zero new
 * chunks, which a store may accept explicitly ({@code lvm.acceptNonZeroingThinPool}); it is then
 * discovered, and its message says it is accepted.
 *
 * <p>While the pool is discovered, condition {@code OrphanVolumes} reports the volumes and exports
 * of the backend that no PillarVolumeState claims ({@link OrphanVolumes}); they are never deleted.
 * Their counts go to the meter {@code pillar_controller_orphans} ({@link ReconcileMeters#orphans}),
 * kept, like the condition, when the check cannot be made now, and dropped with the store.
 * From the same lists, a host the agent still admits to a volume that its state does not publish to
 * is revoked (the {@link ExportAudit} it is given; in production the volume package's grant
 * revocation): a grant never outlives its publication by more than a poll interval.
 */
public final class PillarStoreReconciler implements Reconciler<PillarStore> {
    private static final Logger LOG = Logger.getLogger(PillarStoreReconciler.class.getName());
    private final Function<String, Optional<PillarAgent>> agentsByName;
    private final AgentTargets targets;
    private final AgentClient agents;
    private final StatusWriter status;
    private final ConditionRecorder conditions;
    private final ReconcileSettings settings;
    private final Supplier<List<PillarVolumeState>> volumeStates;
    private final ExportAudit audit;
    private final ReconcileMeters meters;

    /** @param volumeStates every PillarVolumeState, read from the API server when called (not a cache) */
    public PillarStoreReconciler(Function<String, Optional<PillarAgent>> agentsByName, AgentTargets targets, AgentClient agents,
                                 StatusWriter status, ConditionRecorder conditions, ReconcileSettings settings,
                                 Supplier<List<PillarVolumeState>> volumeStates, ExportAudit audit, ReconcileMeters meters) {
        this.agentsByName = agentsByName;
        this.targets = targets;
        this.agents = agents;
        this.status = status;
        this.conditions = conditions;
        this.settings = settings;
        this.volumeStates = volumeStates;
        this.audit = audit;
        this.meters = meters;
    }

    @Override
    public Result reconcile(PillarStore store) {
        PillarStoreStatus next = new PillarStoreStatus();
        next.setObservedGeneration(ConditionRecorder.generation(store));
        PillarStoreSpec spec = store.getSpec();
        List<String> problems = SpecValidator.problems(spec);
        if (!problems.isEmpty()) {
            write(store, next, false, Reasons.INVALID_SPEC, String.join("; ", problems));
            return Result.done();
        }
        Optional<PillarAgent> agent = agentsByName.apply(spec.getAgent());
        if (agent.isEmpty()) {
            write(store, next, false, Reasons.AGENT_NOT_FOUND, "PillarAgent " + spec.getAgent() + " does not exist");
            return Result.requeueAfter(settings.pollInterval());
        }
        String backendName = spec.getZfs() != null ? spec.getZfs().getBackend() : spec.getLvm().getBackend();
        try {
            AgentTarget target = targets.resolve(agent.get());
            GetCapabilitiesResponse capabilities = agents.getCapabilities(target, GetCapabilitiesRequest.getDefaultInstance());
            if (capabilities.hasProblem()) {
                write(store, next, false, Reasons.fromAgent(capabilities.getProblem().getReason()),
                        PillarAgentReconciler.problem(spec.getAgent(), capabilities));
                return Result.requeueAfter(settings.pollInterval());
            }
            Optional<Backend> backend = capabilities.getBackendsList().stream()
                    .filter(b -> b.getName().equals(backendName)).findFirst();
            if (backend.isEmpty()) {
                write(store, next, false, Reasons.BACKEND_NOT_FOUND, "agent " + spec.getAgent() + " has no backend "
                        + backendName + "; it has " + capabilities.getBackendsList().stream().map(Backend::getName).toList());
                return Result.requeueAfter(settings.pollInterval());
            }
            next.setBackendKind(PillarAgentReconciler.kindName(backend.get()));
            Optional<String> difference = BackendLayout.difference(spec, backend.get());
            if (difference.isPresent()) {
                write(store, next, false, Reasons.BACKEND_LAYOUT_MISMATCH, difference.get());
                return Result.requeueAfter(settings.pollInterval());
            }
            String accepted = "";
            if (backend.get().hasProblem()) {
                Problem problem = backend.get().getProblem();
                if (!acceptsNonZeroing(spec, problem)) {
                    write(store, next, false, Reasons.fromAgent(problem.getReason()), "backend " + backendName + " on agent "
                            + spec.getAgent() + ": " + problem.getMessage() + hint(problem));
                    return Result.requeueAfter(settings.pollInterval());
                }
                accepted = "; its thin pool does not zero new chunks, accepted by spec.lvm.acceptNonZeroingThinPool (a new"
                        + " volume may show bytes of a deleted one): " + problem.getMessage();
            }
            GetCapacityResponse capacity = agents.getCapacity(target,
                    GetCapacityRequest.newBuilder().setBackend(backendName).build());
            next.setCapacity(StoreCapacity.of(capacity.getTotalBytes(), capacity.getAvailableBytes()));
            write(store, next, orphans(store, target, backendName), true, Reasons.DISCOVERED, "backend " + backendName + " on agent " + spec.getAgent() + ": "
                    + next.getCapacity().getAvailable() + " of " + next.getCapacity().getTotal() + " available" + accepted);
            return Result.requeueAfter(settings.pollInterval());
        } catch (AgentTargets.Unresolved e) {
            write(store, next, false, Reasons.AGENT_UNREACHABLE, "agent " + spec.getAgent() + " cannot be dialled ("
                    + e.reason() + "): " + e.getMessage());
            return Result.retry();
        } catch (AgentException e) {
            String reason = e.kind() == AgentException.Kind.FAILED_PRECONDITION ? Reasons.POOL_UNAVAILABLE
                    : PillarAgentReconciler.reason(e);
            write(store, next, false, reason, e.getMessage());
            return Result.retry();
        }
    }

    @Override
    public Result deleted(String name) {
        meters.storeGone(name);
        return Result.done();
    }

    /**
     * Condition {@value PillarStore#ORPHAN_VOLUMES} from the agent's lists and the states; kept as it was
     * when the agent cannot list them now. Written with the discovery's status.
     */
    private List<Condition> orphans(PillarStore store, AgentTarget target, String backendName) {
        List<Condition> current = store.getStatus() == null ? List.of() : store.getStatus().getConditions();
        String agent = store.getSpec().getAgent();
        OrphanVolumes orphans;
        try {
            var volumes = agents.listVolumes(target, ListVolumesRequest.newBuilder().setBackend(backendName).build());
            var exports = agents.listExports(target, ListExportsRequest.getDefaultInstance());
            List<PillarVolumeState> states = volumeStates.get();
            orphans = OrphanVolumes.of(agent, backendName, volumes.getVolumesList(), exports.getExportsList(), states);
            audit.audit(target, agent, backendName, exports.getExportsList(), states);
        } catch (AgentException | AgentTargets.Unresolved | io.fabric8.kubernetes.client.KubernetesClientException e) {
            LOG.warning(() -> "PillarStore " + store.getMetadata().getName() + ": orphans not checked now: " + e.getMessage());
            return current;
        }
        meters.orphans(store.getMetadata().getName(), orphans.volumes().size(), orphans.exports().size());
        return conditions.setProblem(store, current, PillarStore.ORPHAN_VOLUMES, orphans.any(),
                orphans.any() ? Reasons.ORPHANS_FOUND : Reasons.NO_ORPHANS, orphans.message(agent, backendName));
    }

    /** Whether the backend's problem is a non-zeroing thin pool that the store accepts. */
    private static boolean acceptsNonZeroing(PillarStoreSpec spec, Problem problem) {
        return Reasons.THIN_POOL_NOT_ZEROING.equals(problem.getReason()) && spec.getLvm() != null
                && Boolean.TRUE.equals(spec.getLvm().getAcceptNonZeroingThinPool());
    }

    private static String hint(Problem problem) {
        return Reasons.THIN_POOL_NOT_ZEROING.equals(problem.getReason())
                ? " (turn zeroing on with 'lvchange --zero y VG/POOL', or accept it with spec.lvm.acceptNonZeroingThinPool: true)"
                : "";
    }

    private void write(PillarStore store, PillarStoreStatus next, boolean discovered, String reason, String message) {
        write(store, next, store.getStatus() == null ? List.of() : store.getStatus().getConditions(), discovered, reason, message);
    }

    private void write(PillarStore store, PillarStoreStatus next, List<Condition> current, boolean discovered, String reason,
                       String message) {
        next.setConditions(conditions.set(store, current, PillarStore.POOL_DISCOVERED, discovered, reason, message));
        status.write(store, next);
    }
}
