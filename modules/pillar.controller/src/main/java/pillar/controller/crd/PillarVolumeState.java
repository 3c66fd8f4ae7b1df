package pillar.controller.crd;

import io.fabric8.crd.generator.annotation.AdditionalPrinterColumn;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.Plural;
import io.fabric8.kubernetes.model.annotation.ShortNames;
import io.fabric8.kubernetes.model.annotation.Version;

/**
 * The controller's durable record of one volume, internal to pillar-csi: its name is the CSI volume
 * ID and its {@code metadata.uid} is the volume's lifecycle identity, carried in every fencing token.
 * The spec holds the settings frozen at creation (store, protocol, backend object, size, filesystem,
 * export spec); the status the progress of the agent steps ({@link VolumePhase}), the publications
 * and {@code publicationGeneration}, each change written by compare-and-swap on the object's
 * resourceVersion. Condition {@value #EXPORT_SPEC_MISSING}.
 *
 * <p>Nobody but the controller writes it, except the one documented recovery: an operator who
 * annotates a state that lacks its export spec with {@value #EXPORT_SPEC_ANNOTATION}.
 */
@Group(Pillar.GROUP)
@Version(Pillar.VERSION)
// spelled out: fabric8 would otherwise pluralize the kind (regular expressions) at every instantiation
@Plural("pillarvolumestates")
@ShortNames("pvs")
@AdditionalPrinterColumn(name = "Volume", jsonPath = ".spec.volumeName", type = AdditionalPrinterColumn.Type.STRING)
@AdditionalPrinterColumn(name = "Store", jsonPath = ".spec.store", type = AdditionalPrinterColumn.Type.STRING)
@AdditionalPrinterColumn(name = "Size", jsonPath = ".status.capacityBytes", type = AdditionalPrinterColumn.Type.INTEGER)
@AdditionalPrinterColumn(name = "Phase", jsonPath = ".status.phase", type = AdditionalPrinterColumn.Type.STRING)
@AdditionalPrinterColumn(name = "Generation", jsonPath = ".status.publicationGeneration",
        type = AdditionalPrinterColumn.Type.INTEGER)
@AdditionalPrinterColumn(name = "Published", jsonPath = ".status.publications[*].node", type = AdditionalPrinterColumn.Type.STRING,
        priority = 1)
@AdditionalPrinterColumn(name = "ExportSpecMissing",
        jsonPath = ".status.conditions[?(@.type==\"ExportSpecMissing\")].status", type = AdditionalPrinterColumn.Type.STRING)
@AdditionalPrinterColumn(name = "Age", jsonPath = ".metadata.creationTimestamp", type = AdditionalPrinterColumn.Type.DATE)
public class PillarVolumeState extends CustomResource<PillarVolumeStateSpec, PillarVolumeStateStatus> {
    private static final long serialVersionUID = 1L;

    /** True while the spec has no export spec: the volume cannot be published until an operator records one. */
    public static final String EXPORT_SPEC_MISSING = "ExportSpecMissing";
    /**
     * The operator's explicit export spec for a state that lacks one:
     * {@code bindAddress=<ip>,port=<1-65535>,aclEnabled=<true|false>[,traddr=<ip>]}.
     */
    public static final String EXPORT_SPEC_ANNOTATION = "pillar.csi.io/export-spec";
    /**
     * Every state carries it from its creation: deleted by hand, a state stays (Terminating, and in use)
     * until DeleteVolume ends the volume's lifecycle; it is the volume's only record, and its UID the
     * lifecycle the agent fences calls with.
     */
    public static final String FINALIZER = "pillar.csi.io/volume-lifecycle";
    /** The reason of the Warning event while a state deleted by hand is held. */
    public static final String DELETION_HELD = "DeletionHeld";
}
