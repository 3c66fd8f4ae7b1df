package pillar.controller.crd;

import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * The wire a volume is served over: named as the PillarProtocol's field that configures it. Frozen
 * on each volume's export; a state recorded before NFS existed has none, which means NVMe-oF/TCP.
 */
public enum ProtocolKind {
    /** A block device exported by the kernel's nvmet target; one node writes at a time. */
    @JsonProperty("nvmeofTcp")
    NVMEOF_TCP,
    /** A ZFS dataset exported by the kernel's nfsd (NFSv4.2); many nodes may mount it at once. */
    @JsonProperty("nfs")
    NFS;

    /** The field name, as the CRDs spell it. */
    public String fieldName() {
        return this == NFS ? "nfs" : "nvmeofTcp";
    }
}
