package pillar.controller.reconcile;

import java.util.Map;
import java.util.Objects;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder;
import pillar.controller.crd.PillarStorageClass;
import pillar.runtime.server.Driver;

/**
 * The VolumeSnapshotClass a PillarStorageClass asks for, and whether an existing one differs: pure
 * functions. Same name as the PillarStorageClass, owned by it, driver {@code pillar.csi.io}, the
 * class's reclaim policy as its deletion policy, no parameters (the controller takes none).
 */
final class DesiredSnapshotClass {
    static final String API_VERSION = "snapshot.storage.k8s.io/v1";
    static final String KIND = "VolumeSnapshotClass";

    private DesiredSnapshotClass() {
    }

    static GenericKubernetesResource of(PillarStorageClass psc) {
        return new GenericKubernetesResourceBuilder()
                .withApiVersion(API_VERSION)
                .withKind(KIND)
                .withNewMetadata()
                .withName(psc.getMetadata().getName())
                .withLabels(Map.of(DesiredStorageClass.MANAGED_BY, DesiredStorageClass.MANAGED_BY_VALUE))
                .withOwnerReferences(DesiredStorageClass.ownerReference(psc))
                .endMetadata()
                .addToAdditionalProperties("driver", Driver.NAME)
                .addToAdditionalProperties("deletionPolicy", psc.getSpec().getReclaimPolicy().name())
                .build();
    }

    /** Whether that very PillarStorageClass is the controller of the VolumeSnapshotClass. */
    static boolean ownedBy(GenericKubernetesResource actual, PillarStorageClass psc) {
        return actual.getMetadata().getOwnerReferences() != null && actual.getMetadata().getOwnerReferences().stream()
                .anyMatch(o -> Boolean.TRUE.equals(o.getController()) && Objects.equals(o.getUid(), psc.getMetadata().getUid()));
    }

    /** Whether it is ours: the label the controller puts on what it generates. */
    static boolean managed(GenericKubernetesResource actual) {
        Map<String, String> labels = actual.getMetadata().getLabels();
        return labels != null && DesiredStorageClass.MANAGED_BY_VALUE.equals(labels.get(DesiredStorageClass.MANAGED_BY));
    }

    /**
     * Whether driver or deletionPolicy differ: the class is then replaced, which is safe, as each
     * VolumeSnapshotContent keeps its own copy of both.
     */
    static boolean needsReplacing(GenericKubernetesResource actual, GenericKubernetesResource desired) {
        return !Objects.equals(actual.get("driver"), desired.get("driver"))
                || !Objects.equals(actual.get("deletionPolicy"), desired.get("deletionPolicy"));
    }
}
