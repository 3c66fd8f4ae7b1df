package pillar.controller.reconcile;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

import io.fabric8.kubernetes.api.model.storage.StorageClass;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.Resource;
import pillar.controller.crd.Condition;
import pillar.controller.crd.PillarStorageClass;
import pillar.controller.crd.PillarStorageClassStatus;
import pillar.controller.crd.Reasons;
import pillar.controller.crd.SpecValidator;

/**
 * Keeps the StorageClass of a PillarStorageClass as its spec says: creates it (same name, owned by
 * the PillarStorageClass, provisioner {@code pillar.csi.io}, the parameters of
 * {@link pillar.controller.crd.StorageClassParameters}); replaces it (delete, create) when a field
 * Kubernetes keeps immutable changes; updates it in place otherwise; deletes it when the
 * PillarStorageClass goes (Kubernetes' garbage collector would too, through the owner reference).
 * A StorageClass of that name that is not ours is never touched: {@code NameConflict}.
 */
public final class PillarStorageClassReconciler implements Reconciler<PillarStorageClass> {
    private final KubernetesClient client;
    private final Predicate<String> storeExists;
    private final Predicate<String> protocolExists;
    private final StatusWriter status;
    private final ConditionRecorder conditions;
    private final EventRecorder events;

    public PillarStorageClassReconciler(KubernetesClient client, Predicate<String> storeExists, Predicate<String> protocolExists,
                                        StatusWriter status, ConditionRecorder conditions, EventRecorder events) {
        this.client = client;
        this.storeExists = storeExists;
        this.protocolExists = protocolExists;
        this.status = status;
        this.conditions = conditions;
        this.events = events;
    }

    @Override
    public Result reconcile(PillarStorageClass psc) {
        String name = psc.getMetadata().getName();
        List<String> problems = SpecValidator.problems(psc.getSpec());
        if (!problems.isEmpty()) {
            return write(psc, false, Reasons.INVALID_SPEC, String.join("; ", problems), Result.done());
        }
        if (!storeExists.test(psc.getSpec().getStore())) {
            return write(psc, false, Reasons.STORE_NOT_FOUND, "PillarStore " + psc.getSpec().getStore() + " does not exist",
                    Result.done());
        }
        if (!protocolExists.test(psc.getSpec().getProtocol())) {
            return write(psc, false, Reasons.PROTOCOL_NOT_FOUND, "PillarProtocol " + psc.getSpec().getProtocol()
                    + " does not exist", Result.done());
        }
        StorageClass desired = DesiredStorageClass.of(psc);
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
                return write(psc, true, Reasons.CREATED, "StorageClass " + name + " is in place", Result.done());
            }
            if (DesiredStorageClass.needsReplacing(actual, desired)) {
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
            return write(psc, true, Reasons.CREATED, "StorageClass " + name + " is in place", Result.done());
        } catch (KubernetesClientException e) {
            return write(psc, false, Reasons.API_ERROR, "StorageClass " + name + ": " + e.getMessage(), Result.retry());
        }
    }

    @Override
    public Result deleted(String name) {
        Resource<StorageClass> resource = client.storage().v1().storageClasses().withName(name);
        StorageClass actual = resource.get();
        if (actual != null && DesiredStorageClass.ownedByAnyPillarStorageClass(actual)) {
            resource.delete();
        }
        return Result.done();
    }

    private Result write(PillarStorageClass psc, boolean created, String reason, String message, Result result) {
        PillarStorageClassStatus next = new PillarStorageClassStatus();
        next.setObservedGeneration(ConditionRecorder.generation(psc));
        if (created) {
            next.setStorageClassName(psc.getMetadata().getName());
        }
        List<Condition> current = psc.getStatus() == null ? List.of() : psc.getStatus().getConditions();
        next.setConditions(conditions.set(psc, current, PillarStorageClass.STORAGE_CLASS_CREATED, created, reason, message));
        status.write(psc, next);
        return result;
    }
}
