package pillar.controller.crd;

import java.util.ArrayList;
import java.util.List;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;

/**
 * The volume's progress and publications: the controller's durable record, written only by
 * compare-and-swap on the object's resourceVersion (a conflict re-reads and decides again), so two
 * writers can never both believe they changed it. An absent status is a state just created:
 * phase Pending, generation 0, no publications.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class PillarVolumeStateStatus {
    @JsonPropertyDescription("Pending, Creating, Exporting, Exported or Deleting.")
    private VolumePhase phase;

    @JsonPropertyDescription("The fencing generation: bumped before every agent call that changes the volume.")
    private Long publicationGeneration;

    @JsonPropertyDescription("The nodes the volume is published to.")
    private List<Publication> publications = new ArrayList<>();

    @JsonPropertyDescription("The volume's size in bytes as the agent last reported it.")
    private Long capacityBytes;

    @JsonPropertyDescription("The block device on the storage node, as the agent reported it; unset for a dataset.")
    private String devicePath;

    @JsonPropertyDescription("The NVMe subsystem NQN of the export.")
    private String subsystemNqn;

    @JsonPropertyDescription("NFS: the path the server exports (the dataset's mountpoint on the storage node).")
    private String exportPath;

    @JsonPropertyDescription("ExportSpecMissing.")
    private List<Condition> conditions = new ArrayList<>();

    public VolumePhase getPhase() {
        return phase;
    }

    public void setPhase(VolumePhase phase) {
        this.phase = phase;
    }

    public Long getPublicationGeneration() {
        return publicationGeneration;
    }

    public void setPublicationGeneration(Long publicationGeneration) {
        this.publicationGeneration = publicationGeneration;
    }

    public List<Publication> getPublications() {
        return publications;
    }

    public void setPublications(List<Publication> publications) {
        this.publications = publications;
    }

    public Long getCapacityBytes() {
        return capacityBytes;
    }

    public void setCapacityBytes(Long capacityBytes) {
        this.capacityBytes = capacityBytes;
    }

    public String getDevicePath() {
        return devicePath;
    }

    public void setDevicePath(String devicePath) {
        this.devicePath = devicePath;
    }

    public String getSubsystemNqn() {
        return subsystemNqn;
    }

    public void setSubsystemNqn(String subsystemNqn) {
        this.subsystemNqn = subsystemNqn;
    }

    public String getExportPath() {
        return exportPath;
    }

    public void setExportPath(String exportPath) {
        this.exportPath = exportPath;
    }

    public List<Condition> getConditions() {
        return conditions;
    }

    public void setConditions(List<Condition> conditions) {
        this.conditions = conditions;
    }
}
