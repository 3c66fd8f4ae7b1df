package pillar.controller.reconcile;

import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;

import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.storage.StorageClass;
import io.fabric8.kubernetes.api.model.storage.StorageClassBuilder;
import pillar.runtime.server.Driver;
import pillar.controller.auth.VolumeStageSecrets;
import pillar.controller.crd.Pillar;
import pillar.controller.crd.PillarStorageClass;
import pillar.controller.crd.PillarStorageClassSpec;
import pillar.controller.crd.ProtocolKind;
import pillar.controller.crd.StorageClassParameters;

/** The StorageClass a PillarStorageClass asks for, and how an existing one differs: pure functions. */
final class DesiredStorageClass {
    /** Marks the StorageClasses this controller generates (its informer selects on it). */
    static final String MANAGED_BY = "app.kubernetes.io/managed-by";
    static final String MANAGED_BY_VALUE = "pillar-controller";
    static final String DEFAULT_CLASS = "storageclass.kubernetes.io/is-default-class";
    static final String KIND = "PillarStorageClass";
    static final String NODE_STAGE_SECRET_NAME = "csi.storage.k8s.io/node-stage-secret-name";
    static final String NODE_STAGE_SECRET_NAMESPACE = "csi.storage.k8s.io/node-stage-secret-namespace";

    private DesiredStorageClass() {
    }

    /** The StorageClass for a valid PillarStorageClass whose protocol does not authenticate hosts. */
    static StorageClass of(PillarStorageClass psc) {
        return of(psc, ProtocolKind.NVMEOF_TCP, Optional.empty());
    }

    /**
     * The StorageClass for a valid PillarStorageClass: same name, owned by it. When its protocol
     * requires authentication, kubelet is told to pass the volume's stage Secret (in the
     * controller's namespace, {@code authNamespace}) to NodeStageVolume. An NFS class's fstype is
     * {@value StorageClassParameters#NFS_FS_TYPE} (the node mounts the server's filesystem).
     */
    static StorageClass of(PillarStorageClass psc, ProtocolKind kind, Optional<String> authNamespace) {
        PillarStorageClassSpec spec = psc.getSpec();
        Map<String, String> parameters = new TreeMap<>();
        parameters.put(StorageClassParameters.STORE, spec.getStore());
        parameters.put(StorageClassParameters.PROTOCOL, spec.getProtocol());
        parameters.put(StorageClassParameters.FS_TYPE, kind == ProtocolKind.NFS ? StorageClassParameters.NFS_FS_TYPE
                : spec.getFsType().value());
        if (spec.getParameters() != null) {
            spec.getParameters().forEach((setting, value) -> parameters.put(StorageClassParameters.key(setting), value));
        }
        List<String> overridable = StorageClassParameters.SETTINGS.stream()
                .filter(s -> spec.getOverridable() != null && spec.getOverridable().contains(s)).toList();
        if (!overridable.isEmpty()) {
            parameters.put(StorageClassParameters.OVERRIDABLE, String.join(",", overridable));
        }
        authNamespace.ifPresent(namespace -> {
            parameters.put(NODE_STAGE_SECRET_NAME, VolumeStageSecrets.PREFIX + "${pv.name}");
            parameters.put(NODE_STAGE_SECRET_NAMESPACE, namespace);
        });
        Map<String, String> annotations = new TreeMap<>();
        if (spec.getDefaultClass()) {
            annotations.put(DEFAULT_CLASS, "true");
        }
        return new StorageClassBuilder()
                .withNewMetadata()
                .withName(psc.getMetadata().getName())
                .withLabels(Map.of(MANAGED_BY, MANAGED_BY_VALUE))
                .withAnnotations(annotations)
                .withOwnerReferences(ownerReference(psc))
                .endMetadata()
                .withProvisioner(Driver.NAME)
                .withParameters(parameters)
                .withReclaimPolicy(spec.getReclaimPolicy().name())
                .withVolumeBindingMode(spec.getVolumeBindingMode().name())
                .withAllowVolumeExpansion(spec.getAllowVolumeExpansion())
                .withMountOptions(spec.getMountOptions() == null ? List.of() : List.copyOf(spec.getMountOptions()))
                .build();
    }

    static OwnerReference ownerReference(PillarStorageClass psc) {
        return new OwnerReferenceBuilder()
                .withApiVersion(Pillar.API_VERSION)
                .withKind(KIND)
                .withName(psc.getMetadata().getName())
                .withUid(psc.getMetadata().getUid())
                .withController(true)
                .build();
    }

    /** Whether a PillarStorageClass (of any UID) is the controller of that StorageClass. */
    static boolean ownedByAnyPillarStorageClass(StorageClass sc) {
        return owner(sc) != null;
    }

    /** Whether that very PillarStorageClass is the controller of the StorageClass. */
    static boolean ownedBy(StorageClass sc, PillarStorageClass psc) {
        OwnerReference owner = owner(sc);
        return owner != null && Objects.equals(owner.getUid(), psc.getMetadata().getUid());
    }

    private static OwnerReference owner(StorageClass sc) {
        List<OwnerReference> owners = sc.getMetadata().getOwnerReferences();
        return owners == null ? null : owners.stream()
                .filter(o -> Boolean.TRUE.equals(o.getController()) && KIND.equals(o.getKind())
                        && o.getApiVersion() != null && o.getApiVersion().startsWith(Pillar.GROUP + "/"))
                .findFirst().orElse(null);
    }

    /**
     * Whether the existing StorageClass differs in a field Kubernetes does not let change
     * (provisioner, parameters, reclaimPolicy, volumeBindingMode; mountOptions too, to be safe):
     * it must be deleted and created again.
     */
    static boolean needsReplacing(StorageClass actual, StorageClass desired) {
        return !Objects.equals(actual.getProvisioner(), desired.getProvisioner())
                || !Objects.equals(orEmpty(actual.getParameters()), desired.getParameters())
                || !Objects.equals(actual.getReclaimPolicy(), desired.getReclaimPolicy())
                || !Objects.equals(actual.getVolumeBindingMode(), desired.getVolumeBindingMode())
                || !Objects.equals(actual.getMountOptions() == null ? List.of() : actual.getMountOptions(), desired.getMountOptions());
    }

    /** Whether a field that may change in place differs (allowVolumeExpansion, labels, the default-class annotation). */
    static boolean needsUpdating(StorageClass actual, StorageClass desired) {
        Map<String, String> labels = orEmpty(actual.getMetadata().getLabels());
        Map<String, String> annotations = orEmpty(actual.getMetadata().getAnnotations());
        return !Objects.equals(actual.getAllowVolumeExpansion(), desired.getAllowVolumeExpansion())
                || !MANAGED_BY_VALUE.equals(labels.get(MANAGED_BY))
                || !Objects.equals(annotations.get(DEFAULT_CLASS), desired.getMetadata().getAnnotations().get(DEFAULT_CLASS));
    }

    private static Map<String, String> orEmpty(Map<String, String> map) {
        return map == null ? Map.of() : map;
    }
}
