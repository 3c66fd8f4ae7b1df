package pillar.controller.reconcile;

import java.util.List;

import pillar.controller.crd.Condition;
import pillar.controller.crd.Nfs;
import pillar.controller.crd.NvmeofTcp;
import pillar.controller.crd.PillarProtocol;
import pillar.controller.crd.PillarProtocolStatus;
import pillar.controller.crd.Reasons;
import pillar.controller.crd.SpecValidator;
import pillar.controller.reconcile.loop.ConditionRecorder;
import pillar.controller.reconcile.loop.Reconciler;
import pillar.controller.reconcile.loop.Result;
import pillar.controller.reconcile.loop.StatusWriter;

/**
 * Checks a protocol's spec and says so in {@code Valid}. Nothing else acts on a protocol: the CSI
 * service reads it when it creates a volume, and refuses an invalid one.
 */
public final class PillarProtocolReconciler implements Reconciler<PillarProtocol> {
    private final StatusWriter status;
    private final ConditionRecorder conditions;

    public PillarProtocolReconciler(StatusWriter status, ConditionRecorder conditions) {
        this.status = status;
        this.conditions = conditions;
    }

    @Override
    public Result reconcile(PillarProtocol protocol) {
        List<String> problems = SpecValidator.problems(protocol.getSpec());
        boolean valid = problems.isEmpty();
        String message;
        if (valid && protocol.getSpec().getNfs() != null) {
            Nfs nfs = protocol.getSpec().getNfs();
            message = "nfs 4.2 from " + (nfs.getServerAddress() == null ? "the agent's address" : nfs.getServerAddress())
                    + ", only the nodes a volume is published to may mount it";
        } else if (valid) {
            NvmeofTcp tcp = protocol.getSpec().getNvmeofTcp();
            message = "nvmeofTcp on " + tcp.getBindAddress() + " port " + tcp.getPort() + ", "
                    + (tcp.getAclEnabled() ? "only published hosts may connect" : "any host may connect (aclEnabled false)");
        } else {
            message = String.join("; ", problems);
        }
        PillarProtocolStatus next = new PillarProtocolStatus();
        next.setObservedGeneration(ConditionRecorder.generation(protocol));
        List<Condition> current = protocol.getStatus() == null ? List.of() : protocol.getStatus().getConditions();
        next.setConditions(conditions.set(protocol, current, PillarProtocol.VALID, valid,
                valid ? Reasons.VALID : Reasons.INVALID_SPEC, message));
        status.write(protocol, next);
        return Result.done();
    }
}
