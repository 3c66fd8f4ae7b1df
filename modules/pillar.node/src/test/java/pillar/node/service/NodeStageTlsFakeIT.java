package pillar.node.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static pillar.node.service.NodeFixture.GIB;

import java.nio.file.Files;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import pillar.api.context.PublishContext;
import pillar.api.csi.v1.NodeStageVolumeRequest;
import pillar.api.csi.v1.VolumeCapability.AccessMode.Mode;
import pillar.api.value.TlsPsk;
import pillar.node.fs.FakeProcessRunner;
import pillar.node.mount.FakeMounter;
import pillar.testkit.CapturedLogs;

/**
 * NodeStageVolume of a volume whose target requires NVMe/TCP TLS ({@code tls=tls1.3} in the publish context),
 * over a real socket with the fake initiator's target checking the key the connect names: the publication's
 * key goes into the node's keyring under its identity and the connect names it, a missing key or a kernel
 * without TLS is FAILED_PRECONDITION, a malformed key or another TLS INVALID_ARGUMENT, each changing nothing;
 * the unstage removes the key; no key reaches a message, a log line or the stage record.
 */
class NodeStageTlsFakeIT {
    private static final TlsPsk PSK = TlsPsk.generate(new SecureRandom());

    @RegisterExtension
    final NodeFixture node = NodeFixture.fake(new FakeMounter(), new FakeProcessRunner(), Duration.ofSeconds(5));
    @RegisterExtension
    final CapturedLogs logs = new CapturedLogs();

    private NodeStageVolumeRequest stage(String volume, Map<String, String> tls) {
        Map<String, String> context = new HashMap<>(node.export(volume, GIB));
        context.putAll(tls);
        node.initiator.requireTls(NodeFixture.nqn(volume), PSK.bytes(), node.tlsKeys::bySerial);
        return Csi.stage(volume, node.staging(volume), Csi.block(Mode.SINGLE_NODE_WRITER), context, Map.of());
    }

    private static Map<String, String> tls(String psk) {
        return Map.of(PublishContext.TLS, PublishContext.TLS_13, PublishContext.TLS_PSK, psk);
    }

    private void assertRefused(Status.Code code, String message, NodeStageVolumeRequest request) {
        assertThatThrownBy(() -> node.node.nodeStageVolume(request)).isInstanceOfSatisfying(StatusRuntimeException.class, e -> {
            assertThat(e.getStatus().getCode()).as(e.getStatus().toString()).isEqualTo(code);
            assertThat(e.getStatus().getDescription()).contains(message).doesNotContain(PSK.value());
        });
    }

    @Test
    void thePublicationsKeyGoesIntoTheNodesKeyringTheConnectNamesItAndTheUnstageRemovesIt() throws Exception {
        node.node.nodeStageVolume(stage("pvc-1", tls(PSK.value())));
        String identity = PSK.identity(NodeFixture.HOST, NodeFixture.nqn("pvc-1"));
        int key = node.tlsKeys.find(identity).orElseThrow();
        assertThat(node.initiator.tlsOfConnects()).containsExactly(node.tlsKeys.serial() + "/" + key);
        assertThat(Files.readString(node.recordFile("pvc-1"))).contains("phase=staged").contains("tls=tls1.3")
                .doesNotContain(PSK.value());

        node.node.nodeUnstageVolume(Csi.unstage("pvc-1", node.staging("pvc-1")));
        assertThat(node.tlsKeys.find(identity)).isEmpty();
        assertThat(logs.lines()).allSatisfy(line -> assertThat(line).doesNotContain(PSK.value()));
    }

    @Test
    void aMissingKeyOrAKernelWithoutTlsIsAPreconditionAndTouchesNothing() {
        assertRefused(Status.Code.FAILED_PRECONDITION, PublishContext.TLS_PSK,
                stage("pvc-2", Map.of(PublishContext.TLS, PublishContext.TLS_13)));
        node.initiator.withoutTls();
        assertRefused(Status.Code.FAILED_PRECONDITION, "cannot connect over it", stage("pvc-2", tls(PSK.value())));
        assertThat(node.initiator.count("connect")).isZero();
        assertThat(node.tlsKeys.identities()).isEmpty();
    }

    @Test
    void aMalformedKeyOrAnotherTlsIsInvalid() {
        String malformed = PSK.value().substring(0, 30);
        assertRefused(Status.Code.INVALID_ARGUMENT, "publish_context." + PublishContext.TLS_PSK, stage("pvc-3", tls(malformed)));
        assertRefused(Status.Code.INVALID_ARGUMENT, "publish_context." + PublishContext.TLS,
                stage("pvc-3", Map.of(PublishContext.TLS, "tls1.2", PublishContext.TLS_PSK, PSK.value())));
        assertThat(node.initiator.count("connect")).isZero();
        assertThat(node.recordFile("pvc-3")).doesNotExist();
    }

    @Test
    void aPlaintextConnectToATlsTargetIsRefusedAsTheKernelIs() {
        NodeStageVolumeRequest plain = stage("pvc-4", Map.of());
        assertRefused(Status.Code.UNAVAILABLE, "ECONNRESET", plain);
    }
}
