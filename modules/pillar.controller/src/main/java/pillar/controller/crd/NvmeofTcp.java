package pillar.controller.crd;

import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Max;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.ValidationRule;

/**
 * Where the target listens and how initiators connect and reconnect. {@code ctrlLossTmo} is bounded
 * (1 to {@value #MAX_CTRL_LOSS_TMO} s, never -1 = forever): it is how long a node that lost the
 * target (a partition, a storage node down) keeps its I/O queued before failing it, and a revoked
 * node's controller must give up too; unset, the node uses the kernel's 600 s, which outlasts a
 * storage node's reboot.
 */
@ValidationRule(value = "!has(self.ctrlLossTmo) || !has(self.reconnectDelay) || self.ctrlLossTmo >= self.reconnectDelay",
        message = "ctrlLossTmo must be at least reconnectDelay")
public class NvmeofTcp {
    /** The longest ctrl_loss_tmo a protocol may ask for, in seconds (an hour). */
    public static final int MAX_CTRL_LOSS_TMO = 3600;

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

    @JsonPropertyDescription("Seconds the initiator retries a lost controller before failing I/O, 1 to 3600 (never"
            + " forever): also how long I/O of a node cut off from the target hangs before it fails. Unset: the kernel's 600.")
    @Min(1)
    @Max(MAX_CTRL_LOSS_TMO)
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
