package pillar.controller.crd;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;

/** A snapshot's progress and what the agent reported of it once taken. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class PillarSnapshotStateStatus {
    @JsonPropertyDescription("Creating, Ready or Deleting.")
    private SnapshotPhase phase;

    @JsonPropertyDescription("The snapshot's size in bytes (its source's when taken): the smallest volume it restores into.")
    private Long sizeBytes;

    @JsonPropertyDescription("When the backend took the snapshot, in seconds since the epoch.")
    private Long creationTimeSeconds;

    @JsonPropertyDescription("Whether a volume can be restored from it now.")
    private Boolean readyToUse;

    public SnapshotPhase getPhase() {
        return phase;
    }

    public void setPhase(SnapshotPhase phase) {
        this.phase = phase;
    }

    public Long getSizeBytes() {
        return sizeBytes;
    }

    public void setSizeBytes(Long sizeBytes) {
        this.sizeBytes = sizeBytes;
    }

    public Long getCreationTimeSeconds() {
        return creationTimeSeconds;
    }

    public void setCreationTimeSeconds(Long creationTimeSeconds) {
        this.creationTimeSeconds = creationTimeSeconds;
    }

    public Boolean getReadyToUse() {
        return readyToUse;
    }

    public void setReadyToUse(Boolean readyToUse) {
        this.readyToUse = readyToUse;
    }
}
