package pillar.controller.crd;

import java.util.ArrayList;
import java.util.List;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;

/** The generated StorageClass. Replaced whole on each write. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class PillarStorageClassStatus {
    @JsonPropertyDescription("The metadata.generation this status was computed from.")
    private Long observedGeneration;
    @JsonPropertyDescription("The StorageClass this object owns, once created.")
    private String storageClassName;
    @JsonPropertyDescription("The VolumeSnapshotClass this object owns, once created.")
    private String snapshotClassName;
    @JsonPropertyDescription("StorageClassCreated, SnapshotClassCreated.")
    private List<Condition> conditions = new ArrayList<>();

    public Long getObservedGeneration() {
        return observedGeneration;
    }

    public void setObservedGeneration(Long observedGeneration) {
        this.observedGeneration = observedGeneration;
    }

    public String getStorageClassName() {
        return storageClassName;
    }

    public void setStorageClassName(String storageClassName) {
        this.storageClassName = storageClassName;
    }

    public String getSnapshotClassName() {
        return snapshotClassName;
    }

    public void setSnapshotClassName(String snapshotClassName) {
        this.snapshotClassName = snapshotClassName;
    }

    public List<Condition> getConditions() {
        return conditions;
    }

    public void setConditions(List<Condition> conditions) {
        this.conditions = conditions;
    }
}
