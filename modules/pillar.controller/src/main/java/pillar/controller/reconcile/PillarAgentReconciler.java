package pillar.controller.reconcile;

import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;

import pillar.api.agent.AgentApiLevel;
import pillar.api.agent.v1.Backend;
import pillar.api.agent.v1.GetCapabilitiesRequest;
import pillar.api.agent.v1.GetCapabilitiesResponse;
import pillar.controller.agent.AgentClient;
import pillar.controller.agent.AgentException;
import pillar.controller.agent.AgentTarget;
import pillar.controller.crd.AgentBackend;
import pillar.controller.crd.Condition;
import pillar.controller.crd.PillarAgent;
import pillar.controller.crd.PillarAgentStatus;
import pillar.controller.crd.Reasons;
import pillar.controller.reconcile.loop.ConditionRecorder;
import pillar.controller.reconcile.loop.ReconcileMeters;
import pillar.controller.reconcile.loop.Reconciler;
import pillar.controller.reconcile.loop.Result;
import pillar.controller.reconcile.loop.StatusWriter;

/**
 * Keeps {@code AgentConnected} true while the agent answers GetCapabilities, with its version,
 * backends and protocols in the status, and false (with the reason) while it does not. An agent that
 * answers with a problem (it admits no lifecycle call, e.g. {@code AgentStateMissing}) is not
 * connected for use: false with the agent's reason and message, its status filled all the same. A
 * connected agent is asked again every poll interval, one with a problem too; an unreachable one
 * with backoff. Each poll sets the agent's {@code pillar_controller_agent_reachable}: 1 when it
 * answered (a problem or an error status is an answer), 0 when it could not be dialled, reached or
 * answered in time. With the controller's agent TLS files, {@code PlaintextTransport} says whether it
 * dials the agent in plaintext (true, with a Warning event, only for an explicit {@code tls.mode: none}).
 */
public final class PillarAgentReconciler implements Reconciler<PillarAgent> {
    private final AgentTargets targets;
    private final AgentClient agents;
    private final StatusWriter status;
    private final ConditionRecorder conditions;
    private final ReconcileSettings settings;
    private final ReconcileMeters meters;

    public PillarAgentReconciler(AgentTargets targets, AgentClient agents, StatusWriter status, ConditionRecorder conditions,
                                 ReconcileSettings settings, ReconcileMeters meters) {
        this.targets = targets;
        this.agents = agents;
        this.status = status;
        this.conditions = conditions;
        this.settings = settings;
        this.meters = meters;
    }

    @Override
    public Result reconcile(PillarAgent agent) {
        PillarAgentStatus next = new PillarAgentStatus();
        next.setObservedGeneration(ConditionRecorder.generation(agent));
        AgentTarget target;
        try {
            target = targets.resolve(agent);
        } catch (AgentTargets.Unresolved e) {
            meters.agentReachable(agent.getMetadata().getName(), false);
            write(agent, next, false, e.reason(), e.getMessage());
            return Reasons.INVALID_SPEC.equals(e.reason()) ? Result.done() : Result.retry();
        }
        next.setEndpoint(target.endpoint());
        try {
            GetCapabilitiesResponse capabilities = agents.getCapabilities(target, GetCapabilitiesRequest.getDefaultInstance());
            meters.agentReachable(agent.getMetadata().getName(), true);
            next.setAgentVersion(capabilities.getAgentVersion());
            next.setBackends(capabilities.getBackendsList().stream().map(PillarAgentReconciler::toStatus).toList());
            next.setProtocols(protocols(capabilities));
            next.setNvmeAuth(capabilities.getNvmeAuth());
            next.setNvmeTls(capabilities.getNvmeTls());
            next.setNfsTls(capabilities.getNfsTls());
            next.setConditions(damagedRecords(agent, capabilities.getDamagedRecordsList()));
            Optional<String> mismatch = AgentApiLevel.mismatch(capabilities, AgentApiLevel.CURRENT, AgentApiLevel.OLDEST_AGENT);
            if (mismatch.isPresent()) {
                write(agent, next, false, Reasons.AGENT_API_MISMATCH, "agent " + agent.getMetadata().getName() + " at " + target
                        + ": " + mismatch.get());
                return Result.requeueAfter(settings.pollInterval());
            }
            if (capabilities.hasProblem()) {
                write(agent, next, false, Reasons.fromAgent(capabilities.getProblem().getReason()), problem(agent.getMetadata()
                        .getName(), capabilities));
                return Result.requeueAfter(settings.pollInterval());
            }
            write(agent, next, true, Reasons.CONNECTED, "agent " + capabilities.getAgentVersion() + " at " + target
                    + ", backends " + capabilities.getBackendsList().stream().map(Backend::getName)
                    .collect(Collectors.joining(", ", "[", "]")));
            return Result.requeueAfter(settings.pollInterval());
        } catch (AgentException e) {
            meters.agentReachable(agent.getMetadata().getName(), !Reasons.AGENT_UNREACHABLE.equals(reason(e)));
            write(agent, next, false, reason(e), e.getMessage());
            return Result.retry();
        }
    }

    @Override
    public Result deleted(String name) {
        meters.agentGone(name);
        return Result.done();
    }

    /** The words of an agent's problem: what it refuses and what the agent says to do. */
    static String problem(String agentName, GetCapabilitiesResponse capabilities) {
        return "agent " + agentName + " answers but admits no volume change: " + capabilities.getProblem().getMessage();
    }

    /** The condition reason of a failed agent call. */
    static String reason(AgentException e) {
        return e.kind() == AgentException.Kind.UNREACHABLE || e.kind() == AgentException.Kind.TIMED_OUT
                ? Reasons.AGENT_UNREACHABLE : Reasons.AGENT_ERROR;
    }

    /** The backend kind as the agent's configuration and PillarStore name it: zfs, lvm, lvm-thin. */
    static String kindName(Backend backend) {
        return switch (backend.getKind()) {
            case BACKEND_KIND_ZFS_ZVOL -> "zfs";
            case BACKEND_KIND_ZFS_DATASET -> "zfs-dataset";
            case BACKEND_KIND_LVM_LINEAR -> "lvm";
            case BACKEND_KIND_LVM_THIN -> "lvm-thin";
            default -> "unknown";
        };
    }

    /**
     * The protocols the agent exports with, as the status names them: from the enum, or from the
     * deprecated strings of an agent of the previous release.
     */
    @SuppressWarnings("deprecation")
    static List<String> protocols(GetCapabilitiesResponse capabilities) {
        if (capabilities.getExportProtocolsCount() == 0) {
            return List.copyOf(capabilities.getProtocolsList());
        }
        return capabilities.getExportProtocolsList().stream().<String>mapMulti((protocol, out) -> {
            switch (protocol) {
                case EXPORT_PROTOCOL_NVMEOF_TCP -> out.accept("nvmeof-tcp");
                case EXPORT_PROTOCOL_NFS -> out.accept("nfs");
                default -> { } // a newer agent's protocol this controller cannot use
            }
        }).toList();
    }

    private static AgentBackend toStatus(Backend backend) {
        return new AgentBackend(backend.getName(), kindName(backend), backend.getPool(), backend.getParent());
    }

    /** The agent's conditions with {@link PillarAgent#DAMAGED_RECORDS} set from what it reports now. */
    private List<Condition> damagedRecords(PillarAgent agent, List<String> damaged) {
        List<Condition> current = agent.getStatus() == null ? List.of() : agent.getStatus().getConditions();
        return conditions.setProblem(agent, current, PillarAgent.DAMAGED_RECORDS, !damaged.isEmpty(),
                damaged.isEmpty() ? Reasons.RECORDS_INTACT : Reasons.RECORDS_DAMAGED, damaged.isEmpty()
                        ? "every export record and fencing mark reads whole"
                        : damaged.size() + " damaged: " + String.join("; ", damaged));
    }

    private void write(PillarAgent agent, PillarAgentStatus next, boolean connected, String reason, String message) {
        // the conditions set on next already (DamagedRecords, from this poll's answer), else the agent's
        List<Condition> current = !next.getConditions().isEmpty() ? next.getConditions()
                : agent.getStatus() == null ? List.of() : agent.getStatus().getConditions();
        List<Condition> set = conditions.set(agent, current, PillarAgent.AGENT_CONNECTED, connected, reason, message);
        if (targets.tlsConfigured() && next.getEndpoint() != null) { // resolved: tls is there, and says none or secret
            boolean plaintext = agent.getSpec().getTls().getMode() == pillar.controller.crd.AgentTls.Mode.NONE;
            set = conditions.setProblem(agent, set, PillarAgent.PLAINTEXT_TRANSPORT, plaintext,
                    plaintext ? Reasons.TLS_MODE_NONE : Reasons.MUTUAL_TLS, plaintext
                            ? "tls.mode is none: the controller dials this agent in plaintext although it has agents.tls files;"
                            + " fencing tokens and DH-HMAC-CHAP keys travel in clear"
                            : "dialled with mutual TLS");
        }
        next.setConditions(set);
        status.write(agent, next);
    }
}
