package pillar.controller.crd;

import io.fabric8.crd.generator.annotation.AdditionalPrinterColumn;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.Plural;
import io.fabric8.kubernetes.model.annotation.ShortNames;
import io.fabric8.kubernetes.model.annotation.Version;

/**
 * How volumes are exported and attached: NVMe-oF over TCP (block volumes) or NFSv4.2 (ZFS datasets,
 * ReadWriteMany). Its settings are frozen on each volume at creation. Condition {@value #VALID}.
 */
@Group(Pillar.GROUP)
@Version(Pillar.VERSION)
// spelled out: fabric8 would otherwise pluralize the kind (regular expressions) at every instantiation
@Plural("pillarprotocols")
@ShortNames("pproto")
@AdditionalPrinterColumn(name = "Bind", jsonPath = ".spec.nvmeofTcp.bindAddress", type = AdditionalPrinterColumn.Type.STRING)
@AdditionalPrinterColumn(name = "Port", jsonPath = ".spec.nvmeofTcp.port", type = AdditionalPrinterColumn.Type.INTEGER)
@AdditionalPrinterColumn(name = "ACL", jsonPath = ".spec.nvmeofTcp.aclEnabled", type = AdditionalPrinterColumn.Type.BOOLEAN)
@AdditionalPrinterColumn(name = "NFS", jsonPath = ".spec.nfs.serverAddress", type = AdditionalPrinterColumn.Type.STRING)
@AdditionalPrinterColumn(name = "Valid", jsonPath = ".status.conditions[?(@.type==\"Valid\")].status",
        type = AdditionalPrinterColumn.Type.STRING)
@AdditionalPrinterColumn(name = "Age", jsonPath = ".metadata.creationTimestamp", type = AdditionalPrinterColumn.Type.DATE)
public class PillarProtocol extends CustomResource<PillarProtocolSpec, PillarProtocolStatus> {
    private static final long serialVersionUID = 1L;

    /** The spec passed every check the controller makes. */
    public static final String VALID = "Valid";
    /** The NVMe/TCP port IANA assigned; the default. */
    public static final int DEFAULT_NVME_PORT = 4420;
    /** The NFS port; NFSv4 needs no other (no rpcbind, no mountd on the wire). */
    public static final int NFS_PORT = 2049;
}
