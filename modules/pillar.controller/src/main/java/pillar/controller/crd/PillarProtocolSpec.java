package pillar.controller.crd;

import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.ValidationRule;

/**
 * The protocol's settings. {@code iscsi} and {@code nfs} are named only to be refused with a clear
 * message (rather than silently pruned): they are designed but do not ship yet.
 */
@ValidationRule(value = "!has(self.iscsi)", message = "iscsi is not supported yet: only nvmeofTcp ships in this version")
@ValidationRule(value = "!has(self.nfs)", message = "nfs is not supported yet: only nvmeofTcp ships in this version")
public class PillarProtocolSpec {
    @JsonPropertyDescription("NVMe-oF over TCP, exported through the kernel's nvmet target.")
    @Required
    private NvmeofTcp nvmeofTcp;

    @JsonPropertyDescription("Not supported yet; refused.")
    private NotShipped iscsi;

    @JsonPropertyDescription("Not supported yet; refused.")
    private NotShipped nfs;

    public NvmeofTcp getNvmeofTcp() {
        return nvmeofTcp;
    }

    public void setNvmeofTcp(NvmeofTcp nvmeofTcp) {
        this.nvmeofTcp = nvmeofTcp;
    }

    public NotShipped getIscsi() {
        return iscsi;
    }

    public void setIscsi(NotShipped iscsi) {
        this.iscsi = iscsi;
    }

    public NotShipped getNfs() {
        return nfs;
    }

    public void setNfs(NotShipped nfs) {
        this.nfs = nfs;
    }
}
