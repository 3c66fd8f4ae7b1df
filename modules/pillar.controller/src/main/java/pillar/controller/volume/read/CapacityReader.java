package pillar.controller.volume.read;

import java.util.List;

import com.google.protobuf.Int64Value;
import pillar.api.agent.v1.GetCapacityRequest;
import pillar.api.csi.v1.GetCapacityResponse;
import pillar.api.csi.v1.VolumeCapability;
import pillar.runtime.server.CsiException;
import pillar.controller.agent.AgentClient;
import pillar.controller.crd.Grammars;
import pillar.controller.crd.PillarStore;
import pillar.controller.crd.ProtocolKind;
import pillar.controller.crd.StorageClassParameters;
import pillar.controller.volume.AgentLocator;
import pillar.controller.volume.Inventory;
import pillar.controller.volume.request.Capabilities;
import pillar.controller.volume.request.Sizes;

/**
 * GetCapacity, per store, from its agent: what external-provisioner's storage capacity tracking
 * asks with a StorageClass's parameters. The store's pool is reachable from every node, so the
 * topology asked for does not change the answer. No store parameter: every store's sum. A store
 * that does not exist, or capabilities pillar-csi cannot serve, have no capacity (0).
 */
public final class CapacityReader {
    private final Inventory inventory;
    private final AgentClient agents;
    private final AgentLocator locator;

    public CapacityReader(Inventory inventory, AgentClient agents, AgentLocator locator) {
        this.inventory = inventory;
        this.agents = agents;
        this.locator = locator;
    }

    public GetCapacityResponse capacity(List<VolumeCapability> capabilities, java.util.Map<String, String> parameters) {
        String storeName = parameters.get(StorageClassParameters.STORE);
        if (storeName != null && !Grammars.isObjectName(storeName)) {
            throw CsiException.invalid("parameters[" + StorageClassParameters.STORE + "]: must be a PillarStore name, is "
                    + Grammars.printable(storeName));
        }
        try {
            capabilities.forEach(Capabilities::check);
        } catch (CsiException unsupported) {
            return of(0);
        }
        if (storeName != null) {
            PillarStore store = inventory.store(storeName).orElse(null);
            return of(store == null || !serves(store, capabilities) ? 0 : available(store));
        }
        long sum = 0;
        for (PillarStore store : inventory.stores()) {
            sum += serves(store, capabilities) ? available(store) : 0;
        }
        return of(sum);
    }

    /** Whether the store's volumes can have these capabilities (a dataset store's are NFS, the others' NVMe-oF/TCP). */
    private static boolean serves(PillarStore store, List<VolumeCapability> capabilities) {
        if (capabilities.isEmpty()) {
            return true;
        }
        boolean datasets = store.getSpec() != null && store.getSpec().getZfs() != null && store.getSpec().getZfs().datasets();
        try {
            Capabilities.fit(Capabilities.forCreate(capabilities, java.util.Optional.empty()),
                    datasets ? ProtocolKind.NFS : ProtocolKind.NVMEOF_TCP);
            return true;
        } catch (CsiException unsupported) {
            return false;
        }
    }

    private long available(PillarStore store) {
        if (store.getSpec() == null || store.getSpec().getAgent() == null || (store.getSpec().getZfs() == null
                && store.getSpec().getLvm() == null)) {
            return 0;
        }
        String backend = store.getSpec().getZfs() != null ? store.getSpec().getZfs().getBackend() : store.getSpec().getLvm().getBackend();
        return agents.getCapacity(locator.target(store.getSpec().getAgent()),
                GetCapacityRequest.newBuilder().setBackend(backend).build()).getAvailableBytes();
    }

    private static GetCapacityResponse of(long available) {
        long usable = Math.max(0, available);
        return GetCapacityResponse.newBuilder()
                .setAvailableCapacity(usable)
                .setMaximumVolumeSize(Int64Value.of(usable - usable % Sizes.ALIGNMENT))
                .setMinimumVolumeSize(Int64Value.of(Sizes.ALIGNMENT))
                .build();
    }
}
