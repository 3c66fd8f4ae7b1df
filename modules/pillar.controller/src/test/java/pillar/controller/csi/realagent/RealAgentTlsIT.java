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
import pillar.controller.crd.TlsMode;
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

    private RealAgentBed bed;

    @BeforeEach
    void start() {
        bed = RealAgentBed.start(dir, FakeConfigfsTree.createWithAuth());
    }

    @AfterEach
    void stop() {
        bed.close();
    }

    private void theNodesKeyIsTheTargetsUnderItsIdentityUntilTheUnpublish(String volume) {
        bed.agent.expectVolume(volume);
        bed.harness.csi().createVolume(Requests.create(volume, 64 * MIB));
        Map<String, String> context = bed.harness.csi().controllerPublishVolume(Requests.publish(volume, NODE_A, Requests.rwo(), false))
                .getPublishContextMap();
        assertThat(context).containsEntry(PublishContext.TLS, PublishContext.TLS_13);
        TlsPsk psk = TlsPsk.of("tlsPsk", context.get(PublishContext.TLS_PSK));
        Nqn connectsAs = Nqn.of(context.getOrDefault(PublishContext.HOST_NQN, NODE_A));
        String identity = psk.identity(connectsAs, Nqn.of(context.get(PublishContext.NQN)));
        assertThat(bed.agent.configfs.tlsKeys().psk(identity)).as("the target's key under the node's identity")
                .hasValueSatisfying(key -> assertThat(key).isEqualTo(psk.bytes()));
        assertThat(bed.agent.configfs.tlsKeys().identities()).containsExactly(identity);

        bed.harness.csi().controllerUnpublishVolume(Requests.unpublish(volume, NODE_A));
        assertThat(bed.agent.configfs.tlsKeys().identities()).isEmpty();
        bed.harness.csi().deleteVolume(Requests.delete(volume));
        assertThat(bed.agent.configfs.entries("ports")).isEmpty();
    }

    @Test
    void withoutDhHmacChapTheNodeConnectsAsItself() {
        KeyedPublications.protocol(bed.harness, tcp -> tcp.setTls(TlsMode.REQUIRED));
        theNodesKeyIsTheTargetsUnderItsIdentityUntilTheUnpublish("pvc-t1");
    }

    @Test
    void withDhHmacChapTheNodeConnectsAsThePublicationsOwnHostNqn() {
        KeyedPublications.protocol(bed.harness, tcp -> {
            tcp.setTls(TlsMode.REQUIRED);
            tcp.setAuth(NvmeofTcp.Auth.REQUIRED);
        });
        theNodesKeyIsTheTargetsUnderItsIdentityUntilTheUnpublish("pvc-t2");
    }
}
