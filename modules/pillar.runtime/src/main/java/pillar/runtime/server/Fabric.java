package pillar.runtime.server;

import java.util.List;

import pillar.api.csi.v1.Topology;

/**
 * pillar-csi's one topology segment. A volume is reached over NVMe/TCP from any node that runs the
 * pillar-node plugin, so every such node reports the same segment ({@code NodeGetInfo}), and every
 * volume is accessible from it ({@code CreateVolume}). It exists so that external-provisioner's
 * storage capacity tracking has a segment to publish a CSIStorageCapacity for (one per
 * StorageClass), and so that pods using a volume are scheduled only onto nodes with the plugin:
 * kubelet labels each such node with it, and a volume's PersistentVolume requires the label.
 */
public final class Fabric {
    /** The topology key: kubelet sets it as a node label, with {@link #VALUE}. */
    public static final String KEY = "topology.pillar.csi.io/fabric";
    public static final String VALUE = "nvme-tcp";

    private static final Topology SEGMENT = Topology.newBuilder().putSegments(KEY, VALUE).build();

    private Fabric() {
    }

    /** The segment every pillar-node reports and every volume is accessible from. */
    public static Topology segment() {
        return SEGMENT;
    }

    /** Whether a segment the CO names includes pillar-csi's nodes (its value for {@link #KEY} is ours). */
    public static boolean includes(Topology topology) {
        return VALUE.equals(topology.getSegmentsMap().get(KEY));
    }

    /** Whether any of these segments includes pillar-csi's nodes. */
    public static boolean anyIncludes(List<Topology> topologies) {
        return topologies.stream().anyMatch(Fabric::includes);
    }
}
