package pillar.controller.crd;

import io.fabric8.crd.generator.annotation.AdditionalPrinterColumn;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.Plural;
import io.fabric8.kubernetes.model.annotation.ShortNames;
import io.fabric8.kubernetes.model.annotation.Version;

/**
 * The controller's durable record of one snapshot, internal to pillar-csi: its name is the CSI
 * snapshot ID and its {@code metadata.uid} the snapshot's lifecycle, carried in the fencing token of
 * every agent call for it (generation 1: a snapshot never changes once taken). A record of its own,
 * not a part of its source's PillarVolumeState, because a snapshot outlives its source volume. The
 * spec is frozen at creation (the CSI name, the source volume and where it lives); the status holds
 * the phase and what the agent reported. Written before the agent is called, by compare-and-swap.
 */
@Group(Pillar.GROUP)
@Version(Pillar.VERSION)
@Plural("pillarsnapshotstates")
@ShortNames("pss")
@AdditionalPrinterColumn(name = "Snapshot", jsonPath = ".spec.snapshotName", type = AdditionalPrinterColumn.Type.STRING)
@AdditionalPrinterColumn(name = "Source", jsonPath = ".spec.sourceVolumeId", type = AdditionalPrinterColumn.Type.STRING)
@AdditionalPrinterColumn(name = "Store", jsonPath = ".spec.store", type = AdditionalPrinterColumn.Type.STRING)
@AdditionalPrinterColumn(name = "Size", jsonPath = ".status.sizeBytes", type = AdditionalPrinterColumn.Type.INTEGER)
@AdditionalPrinterColumn(name = "Phase", jsonPath = ".status.phase", type = AdditionalPrinterColumn.Type.STRING)
@AdditionalPrinterColumn(name = "Age", jsonPath = ".metadata.creationTimestamp", type = AdditionalPrinterColumn.Type.DATE)
public class PillarSnapshotState extends CustomResource<PillarSnapshotStateSpec, PillarSnapshotStateStatus> {
    private static final long serialVersionUID = 1L;

    /**
     * Every snapshot record carries it from its creation: deleted by hand, it stays until
     * DeleteSnapshot has destroyed the snapshot on the agent (its UID is the lifecycle the agent fences with).
     */
    public static final String FINALIZER = "pillar.csi.io/snapshot-lifecycle";
}
