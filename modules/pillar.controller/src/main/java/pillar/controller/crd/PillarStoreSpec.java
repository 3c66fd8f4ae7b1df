package pillar.controller.crd;

import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.Size;
import io.fabric8.generator.annotation.ValidationRule;

/** The agent and exactly one of {@code zfs} and {@code lvm}. */
@ValidationRule(value = "has(self.zfs) != has(self.lvm)", message = "set exactly one of zfs and lvm")
public class PillarStoreSpec {
    @JsonPropertyDescription("The PillarAgent that owns the pool.")
    @Required
    @Pattern(Grammars.DNS_SUBDOMAIN)
    @Size(max = 253)
    private String agent;

    @JsonPropertyDescription("A ZFS pool and parent dataset; volumes are zvols (layout zvol) or filesystem datasets (layout dataset) below it.")
    private ZfsStore zfs;

    @JsonPropertyDescription("An LVM volume group, with a thin pool for thin volumes.")
    private LvmStore lvm;

    public String getAgent() {
        return agent;
    }

    public void setAgent(String agent) {
        this.agent = agent;
    }

    public ZfsStore getZfs() {
        return zfs;
    }

    public void setZfs(ZfsStore zfs) {
        this.zfs = zfs;
    }

    public LvmStore getLvm() {
        return lvm;
    }

    public void setLvm(LvmStore lvm) {
        this.lvm = lvm;
    }
}
