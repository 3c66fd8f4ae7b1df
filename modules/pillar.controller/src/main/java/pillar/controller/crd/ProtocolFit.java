package pillar.controller.crd;

import java.util.Optional;

/**
 * Whether a store's volumes can be served over a protocol: NFS exports filesystem datasets
 * (a ZFS store of layout dataset) and NVMe-oF/TCP exports block devices (zvols, LVs). A pure
 * function of two valid specs, shared by the StorageClass reconciler (reason
 * {@link Reasons#PROTOCOL_STORE_MISMATCH}) and CreateVolume (INVALID_ARGUMENT).
 */
public final class ProtocolFit {
    private ProtocolFit() {
    }

    /** Why {@code protocol} cannot serve {@code store}'s volumes, or empty when it can. */
    public static Optional<String> mismatch(String storeName, PillarStoreSpec store, String protocolName,
                                            PillarProtocolSpec protocol) {
        boolean datasets = store.getZfs() != null && store.getZfs().datasets();
        ProtocolKind kind = protocol.kind();
        if (kind == ProtocolKind.NFS && !datasets) {
            return Optional.of("PillarProtocol " + protocolName + " is nfs and PillarStore " + storeName + " holds block volumes ("
                    + (store.getZfs() != null ? "zfs zvols" : "lvm") + "): NFS serves a zfs store with layout: dataset");
        }
        if (kind == ProtocolKind.NVMEOF_TCP && datasets) {
            return Optional.of("PillarProtocol " + protocolName + " is nvmeofTcp and PillarStore " + storeName
                    + " holds filesystem datasets (layout: dataset): NVMe-oF/TCP serves block volumes; use an nfs protocol");
        }
        return Optional.empty();
    }
}
