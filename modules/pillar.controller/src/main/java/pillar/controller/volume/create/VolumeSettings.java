package pillar.controller.volume.create;

import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

import pillar.runtime.server.CsiException;
import pillar.controller.crd.Grammars;
import pillar.controller.crd.PillarStoreSpec;
import pillar.controller.crd.StorageClassParameters;
import pillar.controller.crd.ZfsStore;

/**
 * The settings a volume is created with, resolved in layers: the store's defaults, then the
 * StorageClass's parameters, then the claim's annotations ({@code pillar.csi.io/<setting>}) of the
 * settings the class lets claims override; the result is frozen on the volume's state. A zfs-only
 * setting on an LVM store, any other {@code pillar.csi.io/} annotation (one the class does not let
 * claims set, or no setting at all) or a value outside its grammar is INVALID_ARGUMENT naming it;
 * so is a zvol or filesystem setting (sparse, volblocksize, mkfsOptions) on a dataset store, whose
 * volumes take compression only.
 *
 * @param backendOptions what the agent's CreateVolume gets (zfs zvols: sparse, volblocksize,
 *                       compression; datasets: compression)
 * @param mkfsOptions    what the node's mkfs gets, through the volume context
 */
record VolumeSettings(Map<String, String> backendOptions, Optional<String> mkfsOptions) {
    private static final String MKFS = "mkfsOptions";

    static VolumeSettings resolve(PillarStoreSpec store, Map<String, String> classSettings, Set<String> overridable,
                                  Map<String, String> claimAnnotations) {
        Map<String, String> settings = new TreeMap<>();
        ZfsStore zfs = store.getZfs();
        boolean datasets = zfs != null && zfs.datasets();
        if (zfs != null && !datasets) {
            settings.put("sparse", String.valueOf(Boolean.TRUE.equals(zfs.getSparse())));
            if (zfs.getVolblocksize() != null) {
                settings.put("volblocksize", zfs.getVolblocksize());
            }
        }
        if (zfs != null && zfs.getCompression() != null) {
            settings.put("compression", zfs.getCompression().name().toLowerCase(Locale.ROOT));
        }
        settings.putAll(classSettings);
        for (Map.Entry<String, String> e : new TreeMap<>(claimAnnotations).entrySet()) {
            if (!e.getKey().startsWith(StorageClassParameters.PREFIX)) {
                continue;
            }
            String setting = e.getKey().substring(StorageClassParameters.PREFIX.length());
            String field = "claim annotation " + Grammars.printable(e.getKey());
            if (!StorageClassParameters.SETTINGS.contains(setting)) {
                throw CsiException.invalid(field + ": not a volume setting; a claim may set " + StorageClassParameters.PREFIX
                        + StorageClassParameters.SETTINGS + " when its StorageClass lets it");
            }
            if (!overridable.contains(setting)) {
                throw CsiException.invalid(field + ": the StorageClass does not let claims override " + setting
                        + (overridable.isEmpty() ? " (it lets them override nothing)"
                        : " (only " + StorageClassParameters.SETTINGS.stream().filter(overridable::contains).toList() + ")")
                        + "; remove the annotation or ask the administrator to list it in the PillarStorageClass's overridable");
            }
            settings.put(setting, CreateParameters.checked(field, setting, e.getValue()));
        }
        if (datasets) {
            Set<String> zvolOnly = new java.util.TreeSet<>(settings.keySet());
            zvolOnly.remove("compression");
            if (!zvolOnly.isEmpty()) {
                throw CsiException.invalid("settings " + zvolOnly + " do not apply to a dataset store (its volumes are NFS"
                        + " filesystems: only compression applies)");
            }
        }
        Optional<String> mkfs = Optional.ofNullable(settings.remove(MKFS));
        if (zfs == null && !settings.isEmpty()) {
            throw CsiException.invalid("settings " + settings.keySet() + " apply to zfs stores only; the store is an LVM volume group");
        }
        return new VolumeSettings(Map.copyOf(settings), mkfs);
    }
}
