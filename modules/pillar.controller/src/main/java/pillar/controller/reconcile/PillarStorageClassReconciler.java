package pillar.controller.reconcile;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

import io.fabric8.kubernetes.api.model.storage.StorageClass;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.Resource;
import pillar.controller.crd.Condition;
import pillar.controller.crd.Nfs;
import pillar.controller.crd.NvmeofTcp;
import pillar.controller.crd.PillarAgent;
import pillar.controller.crd.PillarAgentStatus;
import pillar.controller.crd.PillarProtocol;
import pillar.controller.crd.PillarStorageClass;
import pillar.controller.crd.PillarStorageClassStatus;
import pillar.controller.crd.Reasons;
import pillar.controller.crd.PillarStore;
import pillar.controller.crd.ProtocolFit;
import pillar.controller.crd.ProtocolKind;
import pillar.controller.crd.SpecValidator;
import pillar.controller.reconcile.loop.ConditionRecorder;
import pillar.controller.reconcile.loop.EventRecorder;
import pillar.controller.reconcile.loop.Reconciler;
import pillar.controller.reconcile.loop.Result;
import pillar.controller.reconcile.loop.StatusWriter;

/**
 * Keeps the StorageClass of a PillarStorageClass as its spec says: creates it (same name, owned by
 * the PillarStorageClass, provisioner {@code pillar.csi.io}, the parameters of
 * {@link pillar.controller.crd.StorageClassParameters}); replaces it (delete, create) when a field
 * Kubernetes keeps immutable changes; updates it in place otherwise; deletes it when the
 * PillarStorageClass goes (Kubernetes' garbage collector would too, through the owner reference).
 * A StorageClass of that name that is not ours is never touched: {@code NameConflict}. A class whose
 * protocol requires authentication gets its StorageClass only when the store's agent reported a
 * kernel with nvmet authentication ({@code NvmeAuthUnsupported} otherwise), one whose protocol requires
 * TLS only when that agent reported a kernel that can ({@code NvmeTlsUnsupported}); one whose protocol cannot
 * serve its store's volumes gets none ({@code ProtocolStoreMismatch}, {@link ProtocolFit}); an NFS
 * class's StorageClass says fstype nfs4, whatever its fsType. Once the StorageClass
 * is in place, so is the VolumeSnapshotClass of the same name ({@link SnapshotClasses}), or the
 * SnapshotClassCreated condition says why there is none.
 */
public final class PillarStorageClassReconciler implements Reconciler<PillarStorageClass> {
    private final KubernetesClient client;
    private final Function<String, Optional<PillarStore>> stores;
    private final Function<String, Optional<PillarProtocol>> protocols;
    private final Function<String, Optional<PillarAgent>> agents;
    private final String namespace;
    private final StatusWriter status;
    private final ConditionRecorder conditions;
    private final EventRecorder events;
    private final SnapshotClasses snapshotClasses;

    /**
     * @param stores    the stores by name (the informers' caches), likewise the protocols and agents
     * @param namespace the controller's, where the stage Secrets of authenticated volumes live
     */
    public PillarStorageClassReconciler(KubernetesClient client, Function<String, Optional<PillarStore>> stores,
                                        Function<String, Optional<PillarProtocol>> protocols,
                                        Function<String, Optional<PillarAgent>> agents, String namespace,
                                        StatusWriter status, ConditionRecorder conditions, EventRecorder events) {
        this.client = client;
        this.stores = stores;
        this.protocols = protocols;
        this.agents = agents;
        this.namespace = namespace;
        this.status = status;
        this.conditions = conditions;
        this.events = events;
        this.snapshotClasses = new SnapshotClasses(client);
    }

    @Override
    public Result reconcile(PillarStorageClass psc) {
        String name = psc.getMetadata().getName();
        List<String> problems = SpecValidator.problems(psc.getSpec());
        if (!problems.isEmpty()) {
            return write(psc, false, Reasons.INVALID_SPEC, String.join("; ", problems), Result.done());
        }
        Optional<PillarStore> store = stores.apply(psc.getSpec().getStore());
        Optional<PillarProtocol> protocol = protocols.apply(psc.getSpec().getProtocol());
        if (store.isEmpty()) {
            return write(psc, false, Reasons.STORE_NOT_FOUND, "PillarStore " + psc.getSpec().getStore() + " does not exist",
                    Result.done());
        }
        if (protocol.isEmpty()) {
            return write(psc, false, Reasons.PROTOCOL_NOT_FOUND, "PillarProtocol " + psc.getSpec().getProtocol()
                    + " does not exist", Result.done());
        }
        List<String> storeProblems = SpecValidator.problems(store.get().getSpec());
        List<String> protocolProblems = SpecValidator.problems(protocol.get().getSpec());
        if (storeProblems.isEmpty() && protocolProblems.isEmpty()) {
            Optional<String> mismatch = ProtocolFit.mismatch(psc.getSpec().getStore(), store.get().getSpec(),
                    psc.getSpec().getProtocol(), protocol.get().getSpec());
            if (mismatch.isPresent()) {
                return write(psc, false, Reasons.PROTOCOL_STORE_MISMATCH, mismatch.get(), Result.done());
            }
        }
        ProtocolKind kind = protocol.get().getSpec() == null ? ProtocolKind.NVMEOF_TCP : protocol.get().getSpec().kind();
        NvmeofTcp tcp = protocol.get().getSpec() == null ? null : protocol.get().getSpec().getNvmeofTcp();
        boolean auth = tcp != null && tcp.authRequired();
        String agent = store.get().getSpec() == null ? null : store.get().getSpec().getAgent();
        Optional<String> lacking = auth ? lacking(agent, PillarAgentStatus::getNvmeAuth, "NVMe in-band authentication",
                "'s kernel has no nvmet authentication (CONFIG_NVME_TARGET_AUTH): run it on a kernel with it or use a protocol"
                        + " with auth: off") : Optional.empty();
        if (lacking.isPresent()) {
            return write(psc, false, Reasons.NVME_AUTH_UNSUPPORTED, "PillarProtocol " + psc.getSpec().getProtocol() + lacking.get(),
                    Result.done());
        }
        lacking = tcp != null && tcp.tlsRequired() ? lacking(agent, PillarAgentStatus::getNvmeTls, "NVMe/TCP over TLS",
                " reports no kernel whose nvmet can require TLS (6.7 or later with CONFIG_NVME_TARGET_TCP_TLS, and tlshd; an"
                        + " agent of a release before TLS never does): run a current agent on such a kernel or use a protocol"
                        + " with tls: off") : Optional.empty();
        if (lacking.isPresent()) {
            return write(psc, false, Reasons.NVME_TLS_UNSUPPORTED, "PillarProtocol " + psc.getSpec().getProtocol() + lacking.get(),
                    Result.done());
        }
        Nfs nfs = protocol.get().getSpec() == null ? null : protocol.get().getSpec().getNfs();
        lacking = nfs != null && nfs.tlsRequired() ? lacking(agent, PillarAgentStatus::getNfsTls, "RPC-with-TLS",
                " reports no nfsd and NFS tools that can require it (Linux 6.4 and an nfs-utils with xprtsec, such as Debian 13's;"
                        + " an agent of a release before NFS over TLS never does): run a current agent on such a storage node or use"
                        + " a protocol with tls: off") : Optional.empty();
        if (lacking.isPresent()) {
            return write(psc, false, Reasons.NFS_TLS_UNSUPPORTED, "PillarProtocol " + psc.getSpec().getProtocol() + lacking.get(),
                    Result.done());
        }
        StorageClass desired = DesiredStorageClass.of(psc, kind, auth ? Optional.of(namespace) : Optional.empty());
        try {
            Resource<StorageClass> resource = client.storage().v1().storageClasses().withName(name);
            StorageClass actual = resource.get();
            if (actual != null && !DesiredStorageClass.ownedBy(actual, psc)) {
                if (!DesiredStorageClass.ownedByAnyPillarStorageClass(actual)) {
                    return write(psc, false, Reasons.NAME_CONFLICT, "a StorageClass named " + name + " exists and is not"
                            + " managed by this PillarStorageClass; it is left alone: delete it, or name this object otherwise",
                            Result.done());
                }
                // left by an earlier PillarStorageClass of the same name
                resource.delete();
                actual = null;
            }
            if (actual == null) {
                client.storage().v1().storageClasses().resource(desired).create();
            } else if (DesiredStorageClass.needsReplacing(actual, desired)) {
                // parameters, provisioner, reclaimPolicy and volumeBindingMode cannot change in place
                resource.delete();
                client.storage().v1().storageClasses().resource(desired).create();
                events.normal(psc, "StorageClassReplaced", "StorageClass " + name
                        + " replaced: its immutable fields changed (existing volumes keep their settings)");
            } else if (DesiredStorageClass.needsUpdating(actual, desired)) {
                resource.edit(sc -> {
                    sc.setAllowVolumeExpansion(desired.getAllowVolumeExpansion());
                    Map<String, String> labels = new HashMap<>(sc.getMetadata().getLabels() == null ? Map.of()
                            : sc.getMetadata().getLabels());
                    labels.putAll(desired.getMetadata().getLabels());
                    sc.getMetadata().setLabels(labels);
                    Map<String, String> annotations = new HashMap<>(sc.getMetadata().getAnnotations() == null ? Map.of()
                            : sc.getMetadata().getAnnotations());
                    annotations.remove(DesiredStorageClass.DEFAULT_CLASS);
                    annotations.putAll(desired.getMetadata().getAnnotations());
                    sc.getMetadata().setAnnotations(annotations);
                    return sc;
                });
            }
            SnapshotClasses.Outcome snapshots = snapshotClasses.sync(psc, store.get());
            return write(psc, true, Reasons.CREATED, "StorageClass " + name + " is in place", Optional.of(snapshots),
                    singleNodeAccess(psc, protocol.get()), snapshots.fault() ? Result.retry() : Result.done());
        } catch (KubernetesClientException e) {
            return write(psc, false, Reasons.API_ERROR, "StorageClass " + name + ": " + e.getMessage(), Result.retry());
        }
    }

    /**
     * Why the store's {@code agent} cannot serve a protocol that requires {@code what}, as the rest of a sentence
     * (its status has not said, or said no: {@code no}), or empty when it can.
     */
    private Optional<String> lacking(String agent, Function<PillarAgentStatus, Boolean> can, String what, String no) {
        Optional<Boolean> capable = Optional.ofNullable(agent).flatMap(agents).map(PillarAgent::getStatus).map(can);
        if (capable.isEmpty()) {
            return Optional.of(" requires " + what + " and agent " + agent + " has not reported yet whether its kernel has it");
        }
        return capable.get() ? Optional.empty() : Optional.of(" requires " + what + " and agent " + agent + no);
    }

    @Override
    public Result deleted(String name) {
        Resource<StorageClass> resource = client.storage().v1().storageClasses().withName(name);
        StorageClass actual = resource.get();
        if (actual != null && DesiredStorageClass.ownedByAnyPillarStorageClass(actual)) {
            resource.delete();
        }
        snapshotClasses.remove(name);
        return Result.done();
    }

    private Result write(PillarStorageClass psc, boolean created, String reason, String message, Result result) {
        return write(psc, created, reason, message, Optional.empty(), Optional.empty(), result);
    }

    /** The SingleNodeAccess condition: false when the class's NVMe-oF protocol admits any host. */
    private static Optional<Condition> singleNodeAccess(PillarStorageClass psc, PillarProtocol protocol) {
        var tcp = protocol.getSpec() == null ? null : protocol.getSpec().getNvmeofTcp();
        if (tcp != null && Boolean.FALSE.equals(tcp.getAclEnabled())) {
            return Optional.of(new Condition(PillarStorageClass.SINGLE_NODE_ACCESS, Condition.FALSE, Reasons.ACL_DISABLED,
                    "PillarProtocol " + psc.getSpec().getProtocol() + " has aclEnabled: false: its target admits any host and"
                            + " cannot fence a node, so CreateVolume and ControllerPublishVolume refuse every access mode but"
                            + " ReadOnlyMany (INVALID_ARGUMENT)", null, 0));
        }
        return Optional.of(new Condition(PillarStorageClass.SINGLE_NODE_ACCESS, Condition.TRUE, Reasons.FENCED,
                "the protocol's target admits only the nodes a volume is published to", null, 0));
    }

    private Result write(PillarStorageClass psc, boolean created, String reason, String message,
                         Optional<SnapshotClasses.Outcome> snapshots, Optional<Condition> access, Result result) {
        PillarStorageClassStatus next = new PillarStorageClassStatus();
        next.setObservedGeneration(ConditionRecorder.generation(psc));
        if (created) {
            next.setStorageClassName(psc.getMetadata().getName());
        }
        List<Condition> current = psc.getStatus() == null ? List.of() : psc.getStatus().getConditions();
        List<Condition> updated = conditions.set(psc, current, PillarStorageClass.STORAGE_CLASS_CREATED, created, reason, message);
        if (snapshots.isPresent()) {
            SnapshotClasses.Outcome outcome = snapshots.get();
            if (outcome.created()) {
                next.setSnapshotClassName(psc.getMetadata().getName());
            }
            updated = conditions.set(psc, updated, PillarStorageClass.SNAPSHOT_CLASS_CREATED, outcome.created(),
                    outcome.reason(), outcome.message(), !outcome.fault());
        } else if (psc.getStatus() != null) {
            next.setSnapshotClassName(psc.getStatus().getSnapshotClassName());
        }
        if (access.isPresent()) {
            Condition c = access.get();
            updated = conditions.set(psc, updated, c.getType(), Condition.TRUE.equals(c.getStatus()), c.getReason(),
                    c.getMessage(), true);
        }
        next.setConditions(updated);
        status.write(psc, next);
        return result;
    }
}
