package pillar.controller.crd;

import io.fabric8.crd.generator.annotation.AdditionalPrinterColumn;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.Plural;
import io.fabric8.kubernetes.model.annotation.ShortNames;
import io.fabric8.kubernetes.model.annotation.Version;

/**
 * A storage pool on an agent: a ZFS pool and parent dataset, or an LVM volume group with an
 * optional thin pool, matching one backend of the agent's own configuration, with the defaults of
 * the volumes carved from it. Conditions {@value #POOL_DISCOVERED} and {@value #ORPHAN_VOLUMES}; capacity in the status.
 */
@Group(Pillar.GROUP)
@Version(Pillar.VERSION)
// spelled out: fabric8 would otherwise pluralize the kind (regular expressions) at every instantiation
@Plural("pillarstores")
@ShortNames("pstore")
@AdditionalPrinterColumn(name = "Agent", jsonPath = ".spec.agent", type = AdditionalPrinterColumn.Type.STRING)
@AdditionalPrinterColumn(name = "Backend", jsonPath = ".status.backendKind", type = AdditionalPrinterColumn.Type.STRING)
@AdditionalPrinterColumn(name = "Discovered", jsonPath = ".status.conditions[?(@.type==\"PoolDiscovered\")].status",
        type = AdditionalPrinterColumn.Type.STRING)
@AdditionalPrinterColumn(name = "Orphans", jsonPath = ".status.conditions[?(@.type==\"OrphanVolumes\")].status",
        type = AdditionalPrinterColumn.Type.STRING)
@AdditionalPrinterColumn(name = "Total", jsonPath = ".status.capacity.total", type = AdditionalPrinterColumn.Type.STRING)
@AdditionalPrinterColumn(name = "Available", jsonPath = ".status.capacity.available", type = AdditionalPrinterColumn.Type.STRING)
@AdditionalPrinterColumn(name = "Age", jsonPath = ".metadata.creationTimestamp", type = AdditionalPrinterColumn.Type.DATE)
public class PillarStore extends CustomResource<PillarStoreSpec, PillarStoreStatus> {
    private static final long serialVersionUID = 1L;

    /** The agent has the store's backend, with the same layout, and reported its capacity. */
    public static final String POOL_DISCOVERED = "PoolDiscovered";
    /**
     * True while the agent has volumes or exports of the store's backend that no PillarVolumeState
     * claims; the message names the first ones. They are only reported, never deleted.
     */
    public static final String ORPHAN_VOLUMES = "OrphanVolumes";
}
