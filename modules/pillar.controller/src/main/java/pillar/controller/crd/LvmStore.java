package pillar.controller.crd;

import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.ValidationRule;

/** An LVM layout: linear volumes in a volume group, or thin volumes in its thin pool. */
@ValidationRule(value = "!has(self.acceptNonZeroingThinPool) || !self.acceptNonZeroingThinPool || has(self.thinPool)",
        message = "acceptNonZeroingThinPool applies to a thinPool only")
public class LvmStore {
    @JsonPropertyDescription("The LVM volume group.")
    @Required
    @Pattern(Grammars.POOL_NAME)
    private String volumeGroup;

    @JsonPropertyDescription("The thin pool LV in the volume group; unset: linear volumes.")
    @Pattern(Grammars.POOL_NAME)
    private String thinPool;

    @JsonPropertyDescription("The name of the matching backend in the agent's configuration.")
    @Required
    @Pattern(Grammars.DNS_LABEL)
    private String backend;

    @JsonPropertyDescription("Accept a thin pool that does not zero new chunks (lvchange --zero n). It risks data"
            + " remanence: a new volume may show bytes of a deleted one to its next user. Only for a pool whose volumes are"
            + " all of one trusted tenant. False: such a pool reports PoolDiscovered=False, reason ThinPoolNotZeroing, and"
            + " the agent creates no volume on it.")
    @Default("false")
    private Boolean acceptNonZeroingThinPool = false;

    public String getVolumeGroup() {
        return volumeGroup;
    }

    public void setVolumeGroup(String volumeGroup) {
        this.volumeGroup = volumeGroup;
    }

    public String getThinPool() {
        return thinPool;
    }

    public void setThinPool(String thinPool) {
        this.thinPool = thinPool;
    }

    public String getBackend() {
        return backend;
    }

    public void setBackend(String backend) {
        this.backend = backend;
    }

    public Boolean getAcceptNonZeroingThinPool() {
        return acceptNonZeroingThinPool;
    }

    public void setAcceptNonZeroingThinPool(Boolean acceptNonZeroingThinPool) {
        this.acceptNonZeroingThinPool = acceptNonZeroingThinPool;
    }
}
