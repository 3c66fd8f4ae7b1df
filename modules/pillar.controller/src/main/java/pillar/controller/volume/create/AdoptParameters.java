package pillar.controller.volume.create;

import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

import pillar.controller.crd.Grammars;
import pillar.controller.crd.StorageClassParameters;
import pillar.controller.volume.request.Capabilities;
import pillar.runtime.server.CsiException;

/**
 * What a static PersistentVolume's volume attributes (ControllerPublishVolume's volume_context) ask
 * of an adoption: {@link StorageClassParameters#ADOPT} {@code "true"}, the store and protocol, and
 * optionally the filesystem. Absent {@code ADOPT}, there is none: nothing else is read and nothing
 * changes from a publish without it. Present, every pillar key is checked (INVALID_ARGUMENT for a
 * value other than "true", a missing store or protocol, a value outside its grammar, or a pillar key
 * that means nothing to an adoption); keys of others (e.g. {@code storage.kubernetes.io/...}) are ignored.
 *
 * @param raw the pillar keys as given: recorded as the state's parameters, what a retry must repeat
 */
public record AdoptParameters(String store, String protocol, Optional<String> fsType, Map<String, String> raw) {
    private static final Set<String> KEYS = Set.of(StorageClassParameters.ADOPT, StorageClassParameters.STORE,
            StorageClassParameters.PROTOCOL, StorageClassParameters.FS_TYPE);

    /** The adoption a volume_context asks for; empty when it carries no {@link StorageClassParameters#ADOPT}. */
    public static Optional<AdoptParameters> parse(Map<String, String> volumeContext) {
        String adopt = volumeContext.get(StorageClassParameters.ADOPT);
        if (adopt == null) {
            return Optional.empty();
        }
        String attribute = "volume_context[" + StorageClassParameters.ADOPT + "]";
        if (!"true".equals(adopt)) {
            throw CsiException.invalid(attribute + ": must be \"true\" to adopt the volume, is " + Grammars.printable(adopt));
        }
        Map<String, String> raw = new TreeMap<>();
        volumeContext.forEach((key, value) -> {
            if (key.startsWith(StorageClassParameters.PREFIX) || key.equals(StorageClassParameters.FS_TYPE)) {
                if (!KEYS.contains(key)) {
                    throw CsiException.invalid("volume_context[" + Grammars.printable(key) + "]: means nothing to an adopted"
                            + " volume; its attributes are " + new java.util.TreeSet<>(KEYS));
                }
                raw.put(key, value);
            }
        });
        String store = required(raw, StorageClassParameters.STORE, "a PillarStore name");
        String protocol = required(raw, StorageClassParameters.PROTOCOL, "a PillarProtocol name");
        Optional<String> fsType = Optional.ofNullable(raw.get(StorageClassParameters.FS_TYPE));
        fsType.ifPresent(fs -> {
            if (!Capabilities.FS_TYPES.contains(fs) && !Capabilities.NFS_FS_TYPES.contains(fs)) {
                throw CsiException.invalid("volume_context[" + StorageClassParameters.FS_TYPE + "]: must be ext4, xfs or (NFS) nfs4, is "
                        + Grammars.printable(fs));
            }
        });
        return Optional.of(new AdoptParameters(store, protocol, fsType, Map.copyOf(raw)));
    }

    /** As CreateVolume's parameters: the store and protocol, no settings (an adoption creates nothing), no claim. */
    CreateParameters asCreate() {
        return new CreateParameters(store, protocol, fsType, Map.of(), Set.of(), Optional.empty(), Optional.empty());
    }

    private static String required(Map<String, String> raw, String key, String what) {
        String value = raw.get(key);
        if (value == null) {
            throw CsiException.invalid("volume_context[" + key + "] is required to adopt a volume (" + what + ")");
        }
        if (!Grammars.isObjectName(value)) {
            throw CsiException.invalid("volume_context[" + key + "]: must be " + what + " (RFC 1123 subdomain), is "
                    + Grammars.printable(value));
        }
        return value;
    }
}
