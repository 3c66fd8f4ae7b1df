package pillar.controller.reconcile;

import java.util.function.Consumer;

import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import pillar.controller.crd.LvmStore;
import pillar.controller.crd.NvmeofTcp;
import pillar.controller.crd.PillarAgent;
import pillar.controller.crd.PillarAgentSpec;
import pillar.controller.crd.PillarProtocol;
import pillar.controller.crd.PillarProtocolSpec;
import pillar.controller.crd.PillarStorageClass;
import pillar.controller.crd.PillarStorageClassSpec;
import pillar.controller.crd.PillarStore;
import pillar.controller.crd.PillarStoreSpec;
import pillar.controller.crd.ZfsStore;

/** Pillar objects as a user would write them, with the schema's defaults (the mock server applies none). */
public final class Pillars {
    private Pillars() {
    }

    public static PillarAgent agentAt(String name, String address, int port) {
        PillarAgentSpec spec = new PillarAgentSpec();
        spec.setAddress(address);
        spec.setPort(port);
        return named(new PillarAgent(), name, spec);
    }

    public static PillarAgent agentOnNode(String name, String node) {
        PillarAgentSpec spec = new PillarAgentSpec();
        spec.setNodeName(node);
        return named(new PillarAgent(), name, spec);
    }

    public static PillarStore zfsStore(String name, String agent, String backend, String pool, String parentDataset) {
        ZfsStore zfs = new ZfsStore();
        zfs.setBackend(backend);
        zfs.setPool(pool);
        zfs.setParentDataset(parentDataset);
        return store(name, agent, spec -> spec.setZfs(zfs));
    }

    /** A ZFS store whose volumes are filesystem datasets (layout dataset), for NFS. */
    public static PillarStore datasetStore(String name, String agent, String backend, String pool, String parentDataset) {
        PillarStore store = zfsStore(name, agent, backend, pool, parentDataset);
        store.getSpec().getZfs().setLayout(pillar.controller.crd.ZfsStore.Layout.DATASET);
        return store;
    }

    /** An NFS protocol serving from {@code serverAddress} (null: the agent's address). */
    public static PillarProtocol nfsProtocol(String name, String serverAddress) {
        pillar.controller.crd.Nfs nfs = new pillar.controller.crd.Nfs();
        nfs.setServerAddress(serverAddress);
        PillarProtocolSpec spec = new PillarProtocolSpec();
        spec.setNfs(nfs);
        return named(new PillarProtocol(), name, spec);
    }

    public static PillarStore lvmStore(String name, String agent, String backend, String volumeGroup, String thinPool) {
        LvmStore lvm = new LvmStore();
        lvm.setBackend(backend);
        lvm.setVolumeGroup(volumeGroup);
        lvm.setThinPool(thinPool);
        return store(name, agent, spec -> spec.setLvm(lvm));
    }

    /** A store on that agent, its kind (ZFS or LVM) set by {@code kind}. */
    private static PillarStore store(String name, String agent, Consumer<PillarStoreSpec> kind) {
        PillarStoreSpec spec = new PillarStoreSpec();
        spec.setAgent(agent);
        kind.accept(spec);
        return named(new PillarStore(), name, spec);
    }

    public static PillarProtocol protocol(String name, String bindAddress) {
        NvmeofTcp tcp = new NvmeofTcp();
        tcp.setBindAddress(bindAddress);
        PillarProtocolSpec spec = new PillarProtocolSpec();
        spec.setNvmeofTcp(tcp);
        return named(new PillarProtocol(), name, spec);
    }

    public static PillarStorageClass storageClass(String name, String store, String protocol) {
        PillarStorageClassSpec spec = new PillarStorageClassSpec();
        spec.setStore(store);
        spec.setProtocol(protocol);
        return named(new PillarStorageClass(), name, spec);
    }

    private static <T extends io.fabric8.kubernetes.client.CustomResource<S, ?>, S> T named(T object, String name, S spec) {
        object.setMetadata(new ObjectMetaBuilder().withName(name).build());
        object.setSpec(spec);
        return object;
    }
}
