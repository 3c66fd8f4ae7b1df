package pillar.controller.crd;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.ValidationRule;

/**
 * What a snapshot is of and where it lives, frozen at creation: a retried CreateSnapshot must name
 * the same source, and the snapshot stays on its source's store, agent and backend for ever.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@ValidationRule(value = "self == oldSelf", message = "frozen at creation")
public class PillarSnapshotStateSpec {
    @JsonPropertyDescription("The name the CO gave CreateSnapshot (external-snapshotter: snapshot-<uid>); the key of name idempotency.")
    @Required
    @Pattern("^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$")
    private String snapshotName;

    @JsonPropertyDescription("The CSI volume ID of the volume the snapshot was taken of.")
    @Required
    private String sourceVolumeId;

    @JsonPropertyDescription("The PillarStore of the source volume.")
    @Required
    @Pattern(Grammars.DNS_SUBDOMAIN)
    private String store;

    @JsonPropertyDescription("The PillarAgent that holds the snapshot (the source volume's).")
    @Required
    @Pattern(Grammars.DNS_SUBDOMAIN)
    private String agent;

    @JsonPropertyDescription("The backend, by its name in the agent's configuration.")
    @Required
    @Pattern(Grammars.DNS_LABEL)
    private String backend;

    @JsonPropertyDescription("The source volume's size when the snapshot was asked for, in bytes.")
    @Required
    @Min(1)
    private Long sourceCapacityBytes;

    public String getSnapshotName() {
        return snapshotName;
    }

    public void setSnapshotName(String snapshotName) {
        this.snapshotName = snapshotName;
    }

    public String getSourceVolumeId() {
        return sourceVolumeId;
    }

    public void setSourceVolumeId(String sourceVolumeId) {
        this.sourceVolumeId = sourceVolumeId;
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

    public Long getSourceCapacityBytes() {
        return sourceCapacityBytes;
    }

    public void setSourceCapacityBytes(Long sourceCapacityBytes) {
        this.sourceCapacityBytes = sourceCapacityBytes;
    }
}
