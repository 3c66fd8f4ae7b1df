package pillar.controller.crd;

import java.util.ArrayList;
import java.util.List;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;

/** What the controller last learnt of the store's pool. Replaced whole on each write. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class PillarStoreStatus {
    @JsonPropertyDescription("The metadata.generation this status was computed from.")
    private Long observedGeneration;
    @JsonPropertyDescription("The kind of the agent's backend: zfs, lvm or lvm-thin.")
    private String backendKind;
    @JsonPropertyDescription("The pool's capacity as the agent last reported it.")
    private StoreCapacity capacity;
    @JsonPropertyDescription("PoolDiscovered, OrphanVolumes.")
    private List<Condition> conditions = new ArrayList<>();

    public Long getObservedGeneration() {
        return observedGeneration;
    }

    public void setObservedGeneration(Long observedGeneration) {
        this.observedGeneration = observedGeneration;
    }

    public String getBackendKind() {
        return backendKind;
    }

    public void setBackendKind(String backendKind) {
        this.backendKind = backendKind;
    }

    public StoreCapacity getCapacity() {
        return capacity;
    }

    public void setCapacity(StoreCapacity capacity) {
        this.capacity = capacity;
    }

    public List<Condition> getConditions() {
        return conditions;
    }

    public void setConditions(List<Condition> conditions) {
        this.conditions = conditions;
    }
}
