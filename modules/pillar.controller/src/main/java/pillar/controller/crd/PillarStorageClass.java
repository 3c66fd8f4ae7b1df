package pillar.controller.crd;

import io.fabric8.crd.generator.annotation.AdditionalPrinterColumn;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.Plural;
import io.fabric8.kubernetes.model.annotation.ShortNames;
import io.fabric8.kubernetes.model.annotation.Version;

/**
 * A store and a protocol offered to PersistentVolumeClaims: the controller creates the StorageClass
 * of the same name (provisioner {@code pillar.csi.io}, owned by this object), replaces it when this
 * changes, and deletes it with this. Condition {@value #STORAGE_CLASS_CREATED}.
 */
@Group(Pillar.GROUP)
@Version(Pillar.VERSION)
// spelled out: fabric8 would otherwise pluralize the kind (regular expressions) at every instantiation
@Plural("pillarstorageclasses")
@ShortNames("psc")
@AdditionalPrinterColumn(name = "Store", jsonPath = ".spec.store", type = AdditionalPrinterColumn.Type.STRING)
@AdditionalPrinterColumn(name = "Protocol", jsonPath = ".spec.protocol", type = AdditionalPrinterColumn.Type.STRING)
@AdditionalPrinterColumn(name = "StorageClass", jsonPath = ".status.storageClassName", type = AdditionalPrinterColumn.Type.STRING)
@AdditionalPrinterColumn(name = "Created", jsonPath = ".status.conditions[?(@.type==\"StorageClassCreated\")].status",
        type = AdditionalPrinterColumn.Type.STRING)
@AdditionalPrinterColumn(name = "Snapshots", jsonPath = ".status.conditions[?(@.type==\"SnapshotClassCreated\")].reason",
        type = AdditionalPrinterColumn.Type.STRING)
@AdditionalPrinterColumn(name = "Age", jsonPath = ".metadata.creationTimestamp", type = AdditionalPrinterColumn.Type.DATE)
public class PillarStorageClass extends CustomResource<PillarStorageClassSpec, PillarStorageClassStatus> {
    private static final long serialVersionUID = 1L;

    /** The StorageClass exists as this object describes it. */
    public static final String STORAGE_CLASS_CREATED = "StorageClassCreated";
    /** The VolumeSnapshotClass of the same name exists; false when the store or the cluster cannot take snapshots. */
    public static final String SNAPSHOT_CLASS_CREATED = "SnapshotClassCreated";
    /**
     * Volumes of this class serve single-node access modes (ReadWriteOnce, ReadWriteOncePod, ReadOnlyOnce):
     * false (reason AclDisabled) when its NVMe-oF protocol has aclEnabled: false, whose target cannot fence a node.
     */
    public static final String SINGLE_NODE_ACCESS = "SingleNodeAccess";
}
