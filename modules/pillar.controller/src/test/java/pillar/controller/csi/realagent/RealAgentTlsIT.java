package pillar.controller.csi.realagent;

import static org.assertj.core.api.Assertions.assertThat;
import static pillar.controller.csi.Requests.NODE_A;
import static pillar.controller.csi.realagent.RealAgent.MIB;

import java.nio.file.Path;
import java.util.Map;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import pillar.agent.configfs.FakeConfigfsTree;
import pillar.api.context.PublishContext;
import pillar.api.value.Nqn;
import pillar.api.value.TlsPsk;
import pillar.controller.crd.NvmeofTcp;
import pillar.controller.csi.CsiHarness;
import pillar.controller.csi.Requests;
import pillar.controller.csi.auth.KeyedPublications;

/**
 * NVMe/TCP TLS through the controller and the real agent over real gRPC, on the fake of a 6.12 kernel: the
 * key a publication's context hands the node is the one the agent puts into the target's keyring, under the
 * identity of the host NQN the node connects as (its own without DH-HMAC-CHAP, the publication's with it),
 * so the two ends' handshakes meet; the unpublish takes it out again.
 */
class RealAgentTlsIT {
    @TempDir
    Path dir;

    private RealAgent agent;
    private CsiHarness harness;

    @BeforeEach
    void start() {
        agent = new RealAgent(dir, FakeConfigfsTree.createWithAuth());
        harness = CsiHarness.with(agent.client).start();
        harness.pillarObjects("127.0.0.1", agent.port(), "vg0", "pool0");
        harness.startController("controller-a");
        harness.awaitStoreReady();
    }

    @AfterEach
    void stop() {
        harness.close();
        agent.close();
    }

    private void theNodesKeyIsTheTargetsUnderItsIdentityUntilTheUnpublish(String volume) {
        agent.expectVolume(volume);
        harness.csi().createVolume(Requests.create(volume, 64 * MIB));
        Map<String, String> context = harness.csi().controllerPublishVolume(Requests.publish(volume, NODE_A, Requests.rwo(), false))
                .getPublishContextMap();
        assertThat(context).containsEntry(PublishContext.TLS, PublishContext.TLS_13);
        TlsPsk psk = TlsPsk.of("tlsPsk", context.get(PublishContext.TLS_PSK));
        Nqn connectsAs = Nqn.of(context.getOrDefault(PublishContext.HOST_NQN, NODE_A));
        String identity = psk.identity(connectsAs, Nqn.of(context.get(PublishContext.NQN)));
        assertThat(agent.configfs.tlsKeys().psk(identity)).as("the target's key under the node's identity")
                .hasValueSatisfying(key -> assertThat(key).isEqualTo(psk.bytes()));
        assertThat(agent.configfs.tlsKeys().identities()).containsExactly(identity);

        harness.csi().controllerUnpublishVolume(Requests.unpublish(volume, NODE_A));
        assertThat(agent.configfs.tlsKeys().identities()).isEmpty();
        harness.csi().deleteVolume(Requests.delete(volume));
        assertThat(agent.configfs.entries("ports")).isEmpty();
    }

    @Test
    void withoutDhHmacChapTheNodeConnectsAsItself() {
        KeyedPublications.protocol(harness, tcp -> tcp.setTls(NvmeofTcp.Tls.REQUIRED));
        theNodesKeyIsTheTargetsUnderItsIdentityUntilTheUnpublish("pvc-t1");
    }

    @Test
    void withDhHmacChapTheNodeConnectsAsThePublicationsOwnHostNqn() {
        KeyedPublications.protocol(harness, tcp -> {
            tcp.setTls(NvmeofTcp.Tls.REQUIRED);
            tcp.setAuth(NvmeofTcp.Auth.REQUIRED);
        });
        theNodesKeyIsTheTargetsUnderItsIdentityUntilTheUnpublish("pvc-t2");
    }
}
