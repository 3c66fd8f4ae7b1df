package pillar.controller.crd;

import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Max;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.ValidationRule;

/** Where the target listens and how initiators connect and reconnect. */
@ValidationRule(value = "!has(self.ctrlLossTmo) || !has(self.reconnectDelay) || self.ctrlLossTmo == -1"
        + " || self.ctrlLossTmo >= self.reconnectDelay",
        message = "ctrlLossTmo must be -1 (retry forever) or at least reconnectDelay")
public class NvmeofTcp {
    @JsonPropertyDescription("The storage node's IP address the target listens on (an IP literal, IPv4 or IPv6).")
    @Required
    @Pattern(Grammars.IP_LITERAL)
    private String bindAddress;

    @JsonPropertyDescription("The target's TCP port.")
    @Default("4420")
    @Min(1)
    @Max(65535)
    private Integer port = PillarProtocol.DEFAULT_NVME_PORT;

    @JsonPropertyDescription("Only the hosts a volume is published to may connect (true), or any host (false).")
    @Default("true")
    private Boolean aclEnabled = true;

    @JsonPropertyDescription("Seconds the initiator retries a lost controller before failing I/O; -1 forever. Unset: the kernel's 600.")
    @Min(-1)
    @Max(86400)
    private Integer ctrlLossTmo;

    @JsonPropertyDescription("Seconds between reconnect attempts. Unset: the kernel's 10.")
    @Min(1)
    @Max(3600)
    private Integer reconnectDelay;

    @JsonPropertyDescription("I/O queues per controller. Unset: the kernel's default (one per CPU).")
    @Min(1)
    @Max(1024)
    private Integer nrIoQueues;

    public String getBindAddress() {
        return bindAddress;
    }

    public void setBindAddress(String bindAddress) {
        this.bindAddress = bindAddress;
    }

    public Integer getPort() {
        return port;
    }

    public void setPort(Integer port) {
        this.port = port;
    }

    public Boolean getAclEnabled() {
        return aclEnabled;
    }

    public void setAclEnabled(Boolean aclEnabled) {
        this.aclEnabled = aclEnabled;
    }

    public Integer getCtrlLossTmo() {
        return ctrlLossTmo;
    }

    public void setCtrlLossTmo(Integer ctrlLossTmo) {
        this.ctrlLossTmo = ctrlLossTmo;
    }

    public Integer getReconnectDelay() {
        return reconnectDelay;
    }

    public void setReconnectDelay(Integer reconnectDelay) {
        this.reconnectDelay = reconnectDelay;
    }

    public Integer getNrIoQueues() {
        return nrIoQueues;
    }

    public void setNrIoQueues(Integer nrIoQueues) {
        this.nrIoQueues = nrIoQueues;
    }
}
