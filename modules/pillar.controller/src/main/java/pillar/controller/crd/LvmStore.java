package pillar.controller.crd;

import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Required;

/** An LVM layout: linear volumes in a volume group, or thin volumes in its thin pool. */
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
}
