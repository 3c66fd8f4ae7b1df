package pillar.controller.volume.create;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

import pillar.runtime.server.CsiException;
import pillar.controller.crd.Grammars;
import pillar.controller.crd.VolumeContentSource;
import pillar.controller.crd.SpecValidator;
import pillar.controller.crd.StorageClassParameters;
import pillar.controller.volume.request.Capabilities;

/**
 * CreateVolume's parameters, checked: the StorageClass's (store, protocol, filesystem, volume
 * settings) and the claim's name and namespace that external-provisioner adds with
 * {@code --extra-create-metadata}. Any other key, or a value outside its grammar, is
 * INVALID_ARGUMENT: nothing unchecked goes on.
 *
 * @param settings    the volume settings by short name (sparse, volblocksize, compression, mkfsOptions)
 * @param overridable the settings a claim may override by annotation; empty: none
 * @param claim       the claim's namespace and name, when the provisioner passed them
 * @param cloneMode   how a restore or clone relates to its source, when the class says
 */
public record CreateParameters(String store, String protocol, Optional<String> fsType, Map<String, String> settings,
                        Set<String> overridable, Optional<Claim> claim, Optional<VolumeContentSource.CopyMode> cloneMode) {
    static final String PVC_NAME = "csi.storage.k8s.io/pvc/name";
    static final String PVC_NAMESPACE = "csi.storage.k8s.io/pvc/namespace";
    static final String PV_NAME = "csi.storage.k8s.io/pv/name";

    /** A PersistentVolumeClaim, by namespace and name. */
    record Claim(String namespace, String name) {
        @Override
        public String toString() {
            return namespace + "/" + name;
        }
    }

    public static CreateParameters parse(Map<String, String> parameters) {
        if (parameters.size() > 32) {
            throw CsiException.invalid("parameters: at most 32, has " + parameters.size());
        }
        String store = null;
        String protocol = null;
        Optional<String> fsType = Optional.empty();
        Map<String, String> settings = new TreeMap<>();
        Set<String> overridable = Set.of();
        String pvcName = null;
        String pvcNamespace = null;
        Optional<VolumeContentSource.CopyMode> cloneMode = Optional.empty();
        for (Map.Entry<String, String> e : new TreeMap<>(parameters).entrySet()) {
            String key = e.getKey();
            String value = e.getValue();
            String field = "parameters[" + Grammars.printable(key) + "]";
            switch (key) {
                case StorageClassParameters.STORE -> store = objectName(field, value, "a PillarStore name");
                case StorageClassParameters.PROTOCOL -> protocol = objectName(field, value, "a PillarProtocol name");
                case StorageClassParameters.FS_TYPE -> {
                    if (!Capabilities.FS_TYPES.contains(value) && !Capabilities.NFS_FS_TYPES.contains(value)) {
                        throw CsiException.invalid(field + ": must be ext4, xfs or (NFS) nfs4, is " + Grammars.printable(value));
                    }
                    fsType = Optional.of(value);
                }
                case PVC_NAME -> pvcName = objectName(field, value, "a claim name");
                case PVC_NAMESPACE -> {
                    if (!Grammars.isLabel(value)) {
                        throw CsiException.invalid(field + ": must be a namespace name, is " + Grammars.printable(value));
                    }
                    pvcNamespace = value;
                }
                case PV_NAME -> objectName(field, value, "a volume name");
                case StorageClassParameters.OVERRIDABLE -> overridable = overridable(field, value);
                case StorageClassParameters.CLONE_MODE -> cloneMode = Optional.of(switch (value) {
                    case "linked" -> VolumeContentSource.CopyMode.Linked;
                    case "independent" -> VolumeContentSource.CopyMode.Independent;
                    default -> throw CsiException.invalid(field + ": must be linked or independent, is " + Grammars.printable(value));
                });
                default -> {
                    String setting = key.startsWith(StorageClassParameters.PREFIX)
                            ? key.substring(StorageClassParameters.PREFIX.length()) : "";
                    if (!StorageClassParameters.SETTINGS.contains(setting)) {
                        throw CsiException.invalid(field + ": unknown parameter; pillar-csi takes " + StorageClassParameters.STORE
                                + ", " + StorageClassParameters.PROTOCOL + ", " + StorageClassParameters.FS_TYPE + ", "
                                + StorageClassParameters.OVERRIDABLE + ", " + StorageClassParameters.CLONE_MODE + " and " + StorageClassParameters.PREFIX + StorageClassParameters.SETTINGS);
                    }
                    settings.put(setting, checked(field, setting, value));
                }
            }
        }
        if (store == null || protocol == null) {
            throw CsiException.invalid("parameters: " + StorageClassParameters.STORE + " and " + StorageClassParameters.PROTOCOL
                    + " are required (use a StorageClass generated from a PillarStorageClass)");
        }
        if ((pvcName == null) != (pvcNamespace == null)) {
            throw CsiException.invalid("parameters: " + PVC_NAME + " and " + PVC_NAMESPACE + " come together");
        }
        Optional<Claim> claim = pvcName == null ? Optional.empty() : Optional.of(new Claim(pvcNamespace, pvcName));
        return new CreateParameters(store, protocol, fsType, Map.copyOf(settings), overridable, claim, cloneMode);
    }

    /** One volume setting's value, checked by the same rules as the PillarStorageClass's. */
    static String checked(String field, String setting, String value) {
        List<String> problems = SpecValidator.settingProblems(field, setting, value);
        if (!problems.isEmpty()) {
            throw CsiException.invalid(String.join("; ", problems));
        }
        return value;
    }

    /** A comma-separated list of distinct setting names. */
    private static Set<String> overridable(String field, String value) {
        List<String> names = List.of(value.split(",", -1));
        if (!StorageClassParameters.SETTINGS.containsAll(names) || Set.copyOf(names).size() != names.size()) {
            throw CsiException.invalid(field + ": must be distinct settings of " + StorageClassParameters.SETTINGS
                    + " separated by commas, is " + Grammars.printable(value));
        }
        return Set.copyOf(names);
    }

    private static String objectName(String field, String value, String what) {
        if (!Grammars.isObjectName(value)) {
            throw CsiException.invalid(field + ": must be " + what + " (RFC 1123 subdomain), is " + Grammars.printable(value));
        }
        return value;
    }
}
