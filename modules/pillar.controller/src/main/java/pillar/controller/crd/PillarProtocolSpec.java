package pillar.controller.crd;

import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.ValidationRule;

/**
 * The protocol's settings: exactly one of {@code nvmeofTcp} (block volumes) and {@code nfs} (ZFS
 * datasets, ReadWriteMany). {@code iscsi} is named only to be refused with a clear message (rather
 * than silently pruned): it is designed but does not ship yet.
 */
@ValidationRule(value = "!has(self.iscsi)", message = "iscsi is not supported yet: nvmeofTcp and nfs ship in this version")
@ValidationRule(value = "has(self.nvmeofTcp) != has(self.nfs)", message = "set exactly one of nvmeofTcp and nfs")
public class PillarProtocolSpec {
    @JsonPropertyDescription("NVMe-oF over TCP, exported through the kernel's nvmet target (block volumes, one writer node).")
    private NvmeofTcp nvmeofTcp;

    @JsonPropertyDescription("Not supported yet; refused.")
    private NotShipped iscsi;

    @JsonPropertyDescription("NFSv4.2 exports of ZFS datasets by the storage node's kernel server (ReadWriteMany);"
            + " needs a PillarStore with zfs.layout: dataset.")
    private Nfs nfs;

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

    public Nfs getNfs() {
        return nfs;
    }

    public void setNfs(Nfs nfs) {
        this.nfs = nfs;
    }

    /** The wire this protocol configures: NFS when {@code nfs} is set, NVMe-oF/TCP otherwise. */
    public ProtocolKind kind() {
        return nfs != null ? ProtocolKind.NFS : ProtocolKind.NVMEOF_TCP;
    }
}
