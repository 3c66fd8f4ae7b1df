package pillar.bench.control;

import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import pillar.controller.crd.LvmStore;
import pillar.controller.crd.NvmeofTcp;
import pillar.controller.crd.PillarAgent;
import pillar.controller.crd.PillarAgentSpec;
import pillar.controller.crd.PillarProtocol;
import pillar.controller.crd.PillarProtocolSpec;
import pillar.controller.crd.PillarStore;
import pillar.controller.crd.PillarStoreSpec;

/**
 * The Pillar objects of the benchmark's cluster, as an operator writes them: an agent at
 * 127.0.0.1, an LVM thin store on it (the names the fake agent reports) and an NVMe/TCP protocol
 * binding 127.0.0.1 (the only address the fake configfs lets a port listen on besides ::1).
 */
final class PillarObjects {
    static final String AGENT = "bench-agent";
    static final String STORE = "fast";
    static final String PROTOCOL = "tcp";

    private PillarObjects() {
    }

    static void create(KubernetesClient client, int agentPort) {
        PillarAgentSpec agent = new PillarAgentSpec();
        agent.setAddress("127.0.0.1");
        agent.setPort(agentPort);
        client.resource(named(new PillarAgent(), AGENT, agent)).create();

        LvmStore lvm = new LvmStore();
        lvm.setBackend("fast");
        lvm.setVolumeGroup("benchvg");
        lvm.setThinPool("pool0");
        PillarStoreSpec store = new PillarStoreSpec();
        store.setAgent(AGENT);
        store.setLvm(lvm);
        client.resource(named(new PillarStore(), STORE, store)).create();

        NvmeofTcp tcp = new NvmeofTcp();
        tcp.setBindAddress("127.0.0.1");
        PillarProtocolSpec protocol = new PillarProtocolSpec();
        protocol.setNvmeofTcp(tcp);
        client.resource(named(new PillarProtocol(), PROTOCOL, protocol)).create();
    }

    private static <T extends CustomResource<S, ?>, S> T named(T object, String name, S spec) {
        object.setMetadata(new ObjectMetaBuilder().withName(name).build());
        object.setSpec(spec);
        return object;
    }
}
