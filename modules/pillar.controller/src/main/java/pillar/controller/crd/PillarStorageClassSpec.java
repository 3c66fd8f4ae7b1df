package pillar.controller.crd;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.Size;
import io.fabric8.generator.annotation.ValidationRule;

/** The store, the protocol, and the fields of the generated StorageClass. */
public class PillarStorageClassSpec {
    /** What happens to a volume when its claim is deleted. */
    public enum ReclaimPolicy {
        Delete, Retain
    }

    /** When a claim is bound and provisioned. */
    public enum VolumeBindingMode {
        Immediate, WaitForFirstConsumer
    }

    /** The filesystem of Filesystem-mode volumes. */
    public enum FsType {
        @JsonProperty("ext4")
        EXT4,
        @JsonProperty("xfs")
        XFS;

        /** The name mkfs and mount know it by. */
        public String value() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    @JsonPropertyDescription("The PillarStore volumes are carved from.")
    @Required
    @Pattern(Grammars.DNS_SUBDOMAIN)
    @Size(max = 253)
    private String store;

    @JsonPropertyDescription("The PillarProtocol volumes are exported with.")
    @Required
    @Pattern(Grammars.DNS_SUBDOMAIN)
    @Size(max = 253)
    private String protocol;

    @JsonPropertyDescription("Delete or Retain the volume when its claim goes.")
    @Default("Delete")
    private ReclaimPolicy reclaimPolicy = ReclaimPolicy.Delete;

    @JsonPropertyDescription("Whether claims may grow.")
    @Default("true")
    private Boolean allowVolumeExpansion = true;

    @JsonPropertyDescription("Immediate or WaitForFirstConsumer.")
    @Default("Immediate")
    private VolumeBindingMode volumeBindingMode = VolumeBindingMode.Immediate;

    @JsonPropertyDescription("Mount options of Filesystem-mode volumes, one option per item (e.g. noatime).")
    @Size(max = 32)
    private List<@Pattern(Grammars.MOUNT_OPTION) String> mountOptions = new ArrayList<>();

    @JsonPropertyDescription("The filesystem of Filesystem-mode volumes; ignored with an nfs protocol (the StorageClass says nfs4).")
    @Default("ext4")
    private FsType fsType = FsType.EXT4;

    @JsonPropertyDescription("Make the StorageClass the cluster's default.")
    @Default("false")
    private Boolean defaultClass = false;

    @JsonPropertyDescription("Volume settings over the store's defaults: sparse, volblocksize, compression (zfs), mkfsOptions.")
    @ValidationRule(value = "self.all(k, k in ['sparse', 'volblocksize', 'compression', 'mkfsOptions'])",
            message = "parameters may only be sparse, volblocksize, compression and mkfsOptions")
    @Size(max = 4)
    private Map<String, String> parameters = new TreeMap<>();

    @JsonPropertyDescription("The volume settings a claim may override by annotation (pillar.csi.io/<setting>): any of"
            + " sparse, volblocksize, compression, mkfsOptions. None by default: a claim's pillar.csi.io annotation is refused.")
    @ValidationRule(value = "self.all(s, s in ['sparse', 'volblocksize', 'compression', 'mkfsOptions'])",
            message = "overridable may only list sparse, volblocksize, compression and mkfsOptions")
    @Size(max = 4)
    private List<String> overridable = new ArrayList<>();

    public String getStore() {
        return store;
    }

    public void setStore(String store) {
        this.store = store;
    }

    public String getProtocol() {
        return protocol;
    }

    public void setProtocol(String protocol) {
        this.protocol = protocol;
    }

    public ReclaimPolicy getReclaimPolicy() {
        return reclaimPolicy;
    }

    public void setReclaimPolicy(ReclaimPolicy reclaimPolicy) {
        this.reclaimPolicy = reclaimPolicy;
    }

    public Boolean getAllowVolumeExpansion() {
        return allowVolumeExpansion;
    }

    public void setAllowVolumeExpansion(Boolean allowVolumeExpansion) {
        this.allowVolumeExpansion = allowVolumeExpansion;
    }

    public VolumeBindingMode getVolumeBindingMode() {
        return volumeBindingMode;
    }

    public void setVolumeBindingMode(VolumeBindingMode volumeBindingMode) {
        this.volumeBindingMode = volumeBindingMode;
    }

    public List<String> getMountOptions() {
        return mountOptions;
    }

    public void setMountOptions(List<String> mountOptions) {
        this.mountOptions = mountOptions;
    }

    public FsType getFsType() {
        return fsType;
    }

    public void setFsType(FsType fsType) {
        this.fsType = fsType;
    }

    public Boolean getDefaultClass() {
        return defaultClass;
    }

    public void setDefaultClass(Boolean defaultClass) {
        this.defaultClass = defaultClass;
    }

    public List<String> getOverridable() {
        return overridable;
    }

    public void setOverridable(List<String> overridable) {
        this.overridable = overridable;
    }

    public Map<String, String> getParameters() {
        return parameters;
    }

    public void setParameters(Map<String, String> parameters) {
        this.parameters = parameters;
    }
}
