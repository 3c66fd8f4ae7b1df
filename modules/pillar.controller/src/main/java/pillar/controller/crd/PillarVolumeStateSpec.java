package pillar.controller.crd;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.Size;
import io.fabric8.generator.annotation.ValidationRule;

/**
 * The settings of one volume, resolved at creation (store, then storage class, then claim
 * annotation) and frozen: a retried CreateVolume reuses them, later changes of the store, class or
 * claim never reach an existing volume. Only {@code export} may be recorded later, once, by the
 * documented recovery.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@ValidationRule(value = "!has(oldSelf.export) || (has(self.export) && self.export == oldSelf.export)",
        message = "export is recorded once and never changed")
public class PillarVolumeStateSpec {
    /** The volume modes of CSI. */
    public enum VolumeMode {
        Filesystem, Block
    }

    private static final String FROZEN = "self == oldSelf";
    private static final String FROZEN_MESSAGE = "frozen at creation";

    @JsonPropertyDescription("The name the CO gave CreateVolume (external-provisioner: pvc-<uid>); the key of name idempotency.")
    @Required
    @Pattern("^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$")
    @ValidationRule(value = FROZEN, message = FROZEN_MESSAGE)
    private String volumeName;

    @JsonPropertyDescription("The PillarStore the volume was carved from.")
    @Required
    @Pattern(Grammars.DNS_SUBDOMAIN)
    @ValidationRule(value = FROZEN, message = FROZEN_MESSAGE)
    private String store;

    @JsonPropertyDescription("The PillarAgent that owns the volume (the store's agent at creation).")
    @Required
    @Pattern(Grammars.DNS_SUBDOMAIN)
    @ValidationRule(value = FROZEN, message = FROZEN_MESSAGE)
    private String agent;

    @JsonPropertyDescription("The backend, by its name in the agent's configuration.")
    @Required
    @Pattern(Grammars.DNS_LABEL)
    @ValidationRule(value = FROZEN, message = FROZEN_MESSAGE)
    private String backend;

    @JsonPropertyDescription("zfs, lvm or lvm-thin.")
    @Required
    @ValidationRule(value = FROZEN, message = FROZEN_MESSAGE)
    private String backendKind;

    @JsonPropertyDescription("The PillarProtocol the volume is exported with.")
    @Required
    @Pattern(Grammars.DNS_SUBDOMAIN)
    @ValidationRule(value = FROZEN, message = FROZEN_MESSAGE)
    private String protocol;

    @JsonPropertyDescription("The size created, in bytes (growth is recorded in status.capacityBytes).")
    @Required
    @Min(1)
    @ValidationRule(value = FROZEN, message = FROZEN_MESSAGE)
    private Long capacityBytes;

    @JsonPropertyDescription("Filesystem or Block.")
    @Required
    @ValidationRule(value = FROZEN, message = FROZEN_MESSAGE)
    private VolumeMode volumeMode;

    @JsonPropertyDescription("ext4 or xfs; unset for Block volumes.")
    @ValidationRule(value = FROZEN, message = FROZEN_MESSAGE)
    private String fsType;

    @JsonPropertyDescription("The CSI access modes the volume was created with, e.g. SINGLE_NODE_WRITER.")
    @Required
    @Size(min = 1, max = 8)
    @ValidationRule(value = FROZEN, message = FROZEN_MESSAGE)
    private List<String> accessModes = new ArrayList<>();

    @JsonPropertyDescription("Extra mkfs options, passed to the node in the volume context.")
    @Pattern(Grammars.MKFS_OPTIONS)
    @ValidationRule(value = FROZEN, message = FROZEN_MESSAGE)
    private String mkfsOptions;

    @JsonPropertyDescription("The backend options the agent created the volume with (zfs: sparse, volblocksize, compression).")
    @ValidationRule(value = FROZEN, message = FROZEN_MESSAGE)
    private Map<String, String> backendOptions = new TreeMap<>();

    @JsonPropertyDescription("The CreateVolume parameters as received: a repeated CreateVolume must carry the same.")
    @ValidationRule(value = FROZEN, message = FROZEN_MESSAGE)
    private Map<String, String> parameters = new TreeMap<>();

    @JsonPropertyDescription("The claim the volume was provisioned for, namespace/name, when the provisioner said.")
    @ValidationRule(value = FROZEN, message = FROZEN_MESSAGE)
    private String claim;

    @JsonPropertyDescription("How the volume is exported; missing: ExportSpecMissing until an operator records it.")
    private VolumeExport export;

    @JsonPropertyDescription("The initiator's reconnect and queue settings from the protocol.")
    @ValidationRule(value = FROZEN, message = FROZEN_MESSAGE)
    private VolumeConnect connect;

    @JsonPropertyDescription("What the volume was made from (a snapshot or a volume); unset: it started empty.")
    @ValidationRule(value = FROZEN, message = FROZEN_MESSAGE)
    private VolumeContentSource contentSource;

    public VolumeContentSource getContentSource() {
        return contentSource;
    }

    public void setContentSource(VolumeContentSource contentSource) {
        this.contentSource = contentSource;
    }

    public String getVolumeName() {
        return volumeName;
    }

    public void setVolumeName(String volumeName) {
        this.volumeName = volumeName;
    }

    public String getStore() {
        return store;
    }

    public void setStore(String store) {
        this.store = store;
    }

    public String getAgent() {
        return agent;
    }

    public void setAgent(String agent) {
        this.agent = agent;
    }

    public String getBackend() {
        return backend;
    }

    public void setBackend(String backend) {
        this.backend = backend;
    }

    public String getBackendKind() {
        return backendKind;
    }

    public void setBackendKind(String backendKind) {
        this.backendKind = backendKind;
    }

    public String getProtocol() {
        return protocol;
    }

    public void setProtocol(String protocol) {
        this.protocol = protocol;
    }

    public Long getCapacityBytes() {
        return capacityBytes;
    }

    public void setCapacityBytes(Long capacityBytes) {
        this.capacityBytes = capacityBytes;
    }

    public VolumeMode getVolumeMode() {
        return volumeMode;
    }

    public void setVolumeMode(VolumeMode volumeMode) {
        this.volumeMode = volumeMode;
    }

    public String getFsType() {
        return fsType;
    }

    public void setFsType(String fsType) {
        this.fsType = fsType;
    }

    public List<String> getAccessModes() {
        return accessModes;
    }

    public void setAccessModes(List<String> accessModes) {
        this.accessModes = accessModes;
    }

    public String getMkfsOptions() {
        return mkfsOptions;
    }

    public void setMkfsOptions(String mkfsOptions) {
        this.mkfsOptions = mkfsOptions;
    }

    public Map<String, String> getBackendOptions() {
        return backendOptions;
    }

    public void setBackendOptions(Map<String, String> backendOptions) {
        this.backendOptions = backendOptions;
    }

    public Map<String, String> getParameters() {
        return parameters;
    }

    public void setParameters(Map<String, String> parameters) {
        this.parameters = parameters;
    }

    public String getClaim() {
        return claim;
    }

    public void setClaim(String claim) {
        this.claim = claim;
    }

    public VolumeExport getExport() {
        return export;
    }

    public void setExport(VolumeExport export) {
        this.export = export;
    }

    public VolumeConnect getConnect() {
        return connect;
    }

    public void setConnect(VolumeConnect connect) {
        this.connect = connect;
    }
}
