package pillar.controller.crd;

import java.util.ArrayList;
import java.util.List;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;

/** Whether the protocol's spec is valid. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class PillarProtocolStatus {
    @JsonPropertyDescription("The metadata.generation this status was computed from.")
    private Long observedGeneration;
    @JsonPropertyDescription("Valid.")
    private List<Condition> conditions = new ArrayList<>();

    public Long getObservedGeneration() {
        return observedGeneration;
    }

    public void setObservedGeneration(Long observedGeneration) {
        this.observedGeneration = observedGeneration;
    }

    public List<Condition> getConditions() {
        return conditions;
    }

    public void setConditions(List<Condition> conditions) {
        this.conditions = conditions;
    }
}
