package pillar.controller.crd;

import java.util.Objects;

import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Required;

/**
 * One status condition, as {@code metav1.Condition} defines it: {@code kubectl describe} shows
 * them, {@code kubectl wait --for=condition=AgentConnected} waits on them.
 */
public class Condition {
    public static final String TRUE = "True";
    public static final String FALSE = "False";
    public static final String UNKNOWN = "Unknown";

    @Required
    @JsonPropertyDescription("The condition's type, e.g. AgentConnected.")
    private String type;
    @Required
    @JsonPropertyDescription("True, False or Unknown.")
    private String status;
    @Required
    @JsonPropertyDescription("A CamelCase word for the last transition, e.g. BackendLayoutMismatch.")
    private String reason;
    @JsonPropertyDescription("What happened, for a person.")
    private String message;
    @Required
    @JsonPropertyDescription("When the status last changed (RFC 3339).")
    private String lastTransitionTime;
    @JsonPropertyDescription("The metadata.generation the condition was computed from.")
    private Long observedGeneration;

    public Condition() {
    }

    public Condition(String type, String status, String reason, String message, String lastTransitionTime,
                     long observedGeneration) {
        this.type = type;
        this.status = status;
        this.reason = reason;
        this.message = message;
        this.lastTransitionTime = lastTransitionTime;
        this.observedGeneration = observedGeneration;
    }

    public String getType() {
        return type;
    }

    public void setType(String type) {
        this.type = type;
    }

    public String getStatus() {
        return status;
    }

    public void setStatus(String status) {
        this.status = status;
    }

    public String getReason() {
        return reason;
    }

    public void setReason(String reason) {
        this.reason = reason;
    }

    public String getMessage() {
        return message;
    }

    public void setMessage(String message) {
        this.message = message;
    }

    public String getLastTransitionTime() {
        return lastTransitionTime;
    }

    public void setLastTransitionTime(String lastTransitionTime) {
        this.lastTransitionTime = lastTransitionTime;
    }

    public Long getObservedGeneration() {
        return observedGeneration;
    }

    public void setObservedGeneration(Long observedGeneration) {
        this.observedGeneration = observedGeneration;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Condition c && Objects.equals(type, c.type) && Objects.equals(status, c.status)
                && Objects.equals(reason, c.reason) && Objects.equals(message, c.message)
                && Objects.equals(lastTransitionTime, c.lastTransitionTime)
                && Objects.equals(observedGeneration, c.observedGeneration);
    }

    @Override
    public int hashCode() {
        return Objects.hash(type, status, reason, message, lastTransitionTime, observedGeneration);
    }

    @Override
    public String toString() {
        return type + "=" + status + " (" + reason + ": " + message + ")";
    }
}
