package pillar.controller.reconcile;

import java.util.Optional;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceList;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.NonNamespaceOperation;
import io.fabric8.kubernetes.client.dsl.Resource;
import pillar.controller.crd.PillarStorageClass;
import pillar.controller.crd.PillarStore;
import pillar.controller.crd.Reasons;

/**
 * Keeps the VolumeSnapshotClass of a PillarStorageClass as {@link DesiredSnapshotClass} says, when
 * the store can take snapshots (ZFS zvols and datasets, LVM thin) and the cluster serves {@code snapshot.storage.k8s.io/v1}
 * (the external-snapshotter's CRDs, a cluster add-on). Otherwise removes the one it made, if any,
 * and says why. A VolumeSnapshotClass of that name that is not ours is never touched.
 */
final class SnapshotClasses {
    /** What became of the class: the SnapshotClassCreated condition. {@code fault} marks a failure to retry. */
    record Outcome(boolean created, String reason, String message, boolean fault) {
    }

    private final KubernetesClient client;

    SnapshotClasses(KubernetesClient client) {
        this.client = client;
    }

    /** Why the store's volumes take no snapshots, or empty when they do. */
    private static Optional<String> snapshotsUnsupported(PillarStore store) {
        String name = store.getMetadata().getName();
        if (store.getSpec().getLvm() != null && store.getSpec().getLvm().getThinPool() == null) {
            return Optional.of("PillarStore " + name + " is an LVM linear volume group: it cannot take snapshots (use a thin"
                    + " pool); clones are block copies");
        }
        return Optional.empty();
    }

    /** Brings the class in line for a valid PillarStorageClass whose StorageClass is in place. */
    Outcome sync(PillarStorageClass psc, PillarStore store) {
        String name = psc.getMetadata().getName();
        try {
            if (!client.supports(DesiredSnapshotClass.API_VERSION, DesiredSnapshotClass.KIND)) {
                return new Outcome(false, Reasons.SNAPSHOT_API_MISSING, "the cluster serves no "
                        + DesiredSnapshotClass.API_VERSION + " " + DesiredSnapshotClass.KIND + ": install the"
                        + " external-snapshotter's CRDs and snapshot-controller to take VolumeSnapshots", false);
            }
            Resource<GenericKubernetesResource> resource = classes().withName(name);
            GenericKubernetesResource actual = resource.get();
            Optional<String> unsupported = snapshotsUnsupported(store);
            if (unsupported.isPresent()) {
                if (actual != null && DesiredSnapshotClass.ownedBy(actual, psc)) {
                    resource.delete();
                }
                return new Outcome(false, Reasons.SNAPSHOTS_UNSUPPORTED, unsupported.get(), false);
            }
            GenericKubernetesResource desired = DesiredSnapshotClass.of(psc);
            if (actual != null && !DesiredSnapshotClass.ownedBy(actual, psc)) {
                if (!DesiredSnapshotClass.managed(actual)) {
                    return new Outcome(false, Reasons.NAME_CONFLICT, "a VolumeSnapshotClass named " + name + " exists and is"
                            + " not managed by this PillarStorageClass; it is left alone", false);
                }
                resource.delete(); // left by an earlier PillarStorageClass of the same name
                actual = null;
            }
            if (actual != null && DesiredSnapshotClass.needsReplacing(actual, desired)) {
                resource.delete();
                actual = null;
            }
            if (actual == null) {
                classes().resource(desired).create();
            }
            return new Outcome(true, Reasons.CREATED, "VolumeSnapshotClass " + name + " is in place", false);
        } catch (KubernetesClientException e) {
            return new Outcome(false, Reasons.API_ERROR, "VolumeSnapshotClass " + name + ": " + e.getMessage(), true);
        }
    }

    /** Removes the class of a PillarStorageClass that is gone, if it is ours. */
    void remove(String name) {
        if (!client.supports(DesiredSnapshotClass.API_VERSION, DesiredSnapshotClass.KIND)) {
            return;
        }
        Resource<GenericKubernetesResource> resource = classes().withName(name);
        GenericKubernetesResource actual = resource.get();
        if (actual != null && DesiredSnapshotClass.managed(actual)) {
            resource.delete();
        }
    }

    private NonNamespaceOperation<GenericKubernetesResource, GenericKubernetesResourceList, Resource<GenericKubernetesResource>>
            classes() {
        return client.genericKubernetesResources(DesiredSnapshotClass.API_VERSION, DesiredSnapshotClass.KIND);
    }
}
