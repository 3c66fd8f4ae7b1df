package pillar.node.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static pillar.node.service.NodeFixture.GIB;

import java.nio.file.Files;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import pillar.api.csi.v1.NodeStageVolumeRequest;
import pillar.api.csi.v1.VolumeCapability.AccessMode.Mode;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import pillar.api.context.PublicationHost;
import pillar.api.context.PublishContext;
import pillar.api.context.StageSecrets;
import pillar.api.value.DhchapSecret;
import pillar.node.fs.FakeProcessRunner;
import pillar.node.mount.FakeMounter;
import pillar.testkit.CapturedLogs;

/**
 * NodeStageVolume of a volume whose target requires DH-HMAC-CHAP ({@code auth=dhchap} in the publish
 * context), over a real socket with the fake initiator checking secrets as the kernel does: the node's
 * own secrets from the request's secrets reach the connect, a missing one is FAILED_PRECONDITION naming
 * the key, a malformed one INVALID_ARGUMENT, a wrong one the kernel's refusal; no secret reaches a
 * message, a log line or the stage record.
 */
class NodeStageAuthFakeIT {
    private static final String NODE = "worker-1";
    private static final String KEY = DhchapSecret.encode(1, filled(0x61)).value();
    private static final String OTHER_KEY = DhchapSecret.encode(1, filled(0x62)).value();
    private static final String CTRL = DhchapSecret.encode(1, filled(0x63)).value();

    @RegisterExtension
    final NodeFixture node = NodeFixture.fake(new FakeMounter(), new FakeProcessRunner(), Duration.ofSeconds(5));
    @RegisterExtension
    final CapturedLogs logs = new CapturedLogs();

    private static byte[] filled(int b) {
        byte[] key = new byte[32];
        Arrays.fill(key, (byte) b);
        return key;
    }

    private NodeStageVolumeRequest stage(String volume, Map<String, String> secrets) {
        Map<String, String> context = new HashMap<>(node.export(volume, GIB));
        context.put(PublishContext.AUTH, PublishContext.AUTH_DHCHAP);
        node.initiator.requireAuth(NodeFixture.nqn(volume), KEY, CTRL);
        return Csi.stage(volume, node.staging(volume), Csi.block(Mode.SINGLE_NODE_WRITER), context, Map.of()).toBuilder()
                .putAllSecrets(secrets).build();
    }

    private void assertRefused(Status.Code code, String message, NodeStageVolumeRequest request) {
        assertThatThrownBy(() -> node.node.nodeStageVolume(request)).isInstanceOfSatisfying(StatusRuntimeException.class, e -> {
            assertThat(e.getStatus().getCode()).as(e.getStatus().toString()).isEqualTo(code);
            assertThat(e.getStatus().getDescription()).contains(message).doesNotContain(KEY).doesNotContain(OTHER_KEY);
        });
    }

    @Test
    void theNodesSecretsReachTheConnectAndNeitherTheRecordNorALog() throws Exception {
        node.node.nodeStageVolume(stage("pvc-1", Map.of(StageSecrets.hostKey(NODE), KEY, StageSecrets.controllerKey(NODE), CTRL,
                StageSecrets.hostKey("worker-2"), OTHER_KEY)));
        assertThat(node.initiator.count("connect")).isEqualTo(1);
        assertThat(Files.readString(node.recordFile("pvc-1"))).contains("phase=staged").doesNotContain(KEY).doesNotContain(CTRL);
        assertThat(logs.lines()).allSatisfy(line -> assertThat(line).doesNotContain(KEY).doesNotContain(CTRL));
    }

    @Test
    void aMissingSecretIsAPreconditionNamingTheKeyAndTouchesNothing() {
        assertRefused(Status.Code.FAILED_PRECONDITION, "'" + StageSecrets.hostKey(NODE) + "'",
                stage("pvc-2", Map.of(StageSecrets.hostKey("worker-2"), KEY)));
        assertThat(node.initiator.count("connect")).isZero();
        assertThat(node.recordFile("pvc-2")).doesNotExist();
    }

    @Test
    void aMalformedSecretIsInvalidAndAWrongOneIsRefusedAsTheKernelRefusesIt() {
        String damaged = KEY.substring(0, 12) + (KEY.charAt(12) == 'A' ? 'B' : 'A') + KEY.substring(13);
        assertRefused(Status.Code.INVALID_ARGUMENT, "secrets." + StageSecrets.hostKey(NODE) + ": its CRC-32",
                stage("pvc-3", Map.of(StageSecrets.hostKey(NODE), damaged)));
        assertThat(node.initiator.count("connect")).isZero();

        assertRefused(Status.Code.UNAVAILABLE, "EKEYREJECTED", stage("pvc-3", Map.of(StageSecrets.hostKey(NODE), OTHER_KEY)));
        assertRefused(Status.Code.UNAVAILABLE, "EKEYREJECTED", stage("pvc-3",
                Map.of(StageSecrets.hostKey(NODE), KEY, StageSecrets.controllerKey(NODE), OTHER_KEY)));
        node.node.nodeStageVolume(stage("pvc-3", Map.of(StageSecrets.hostKey(NODE), KEY)));
    }

    /** A publication's own keys: in the publish context with the host NQN they authenticate, no stage secrets. */
    private NodeStageVolumeRequest stageOwn(String volume, Map<String, String> own) {
        Map<String, String> context = new HashMap<>(node.export(volume, GIB));
        context.put(PublishContext.AUTH, PublishContext.AUTH_DHCHAP);
        context.putAll(own);
        node.initiator.requireAuth(NodeFixture.nqn(volume), KEY, CTRL);
        return Csi.stage(volume, node.staging(volume), Csi.block(Mode.SINGLE_NODE_WRITER), context, Map.of());
    }

    @Test
    void aPublicationsOwnKeysConnectAsItsOwnHostNqnAndItsUnstageFindsThatController() throws Exception {
        String host = PublicationHost.nqn(NODE, "pvc-5").value();
        node.node.nodeStageVolume(stageOwn("pvc-5", Map.of(PublishContext.HOST_NQN, host, PublishContext.DHCHAP_SECRET, KEY,
                PublishContext.DHCHAP_CTRL_SECRET, CTRL)));
        assertThat(node.initiator.count("connect")).isEqualTo(1);
        String record = Files.readString(node.recordFile("pvc-5"));
        assertThat(record).contains("phase=staged").contains("host-nqn=" + host).doesNotContain(KEY).doesNotContain(CTRL);
        List<String> hosts;
        try (var controllers = Files.list(node.root.resolve("sys/class/nvme"))) {
            hosts = controllers.map(c -> read(c.resolve("hostnqn"))).toList();
        }
        assertThat(hosts).as("the controller's hostnqn").containsExactly(host);

        // a repeat holds; the unstage finds the controller of the publication's NQN and disconnects it
        node.node.nodeStageVolume(stageOwn("pvc-5", Map.of(PublishContext.HOST_NQN, host, PublishContext.DHCHAP_SECRET, KEY,
                PublishContext.DHCHAP_CTRL_SECRET, CTRL)));
        assertThat(node.initiator.count("connect")).isEqualTo(1);
        node.node.nodeUnstageVolume(Csi.unstage("pvc-5", node.staging("pvc-5")));
        assertThat(node.initiator.count("disconnect")).isEqualTo(1);
        assertThat(logs.lines()).allSatisfy(line -> assertThat(line).doesNotContain(KEY).doesNotContain(CTRL));
    }

    @Test
    void aVolumeStagedWithItsNodeKeysStaysOnThatConnectionWhenARenewedContextNamesAPublicationHost() {
        node.node.nodeStageVolume(stage("pvc-7", Map.of(StageSecrets.hostKey(NODE), KEY, StageSecrets.controllerKey(NODE), CTRL)));
        node.node.nodeStageVolume(stageOwn("pvc-7", Map.of(PublishContext.HOST_NQN, PublicationHost.nqn(NODE, "pvc-7").value(),
                PublishContext.DHCHAP_SECRET, KEY, PublishContext.DHCHAP_CTRL_SECRET, CTRL)));
        assertThat(node.initiator.count("connect")).as("the live connection is kept").isEqualTo(1);
        assertThat(node.initiator.count("disconnect")).isZero();
    }

    @Test
    void aPublicationSecretWithoutItsHostIsInvalidAndAHostWithoutItsSecretAPrecondition() {
        assertRefused(Status.Code.INVALID_ARGUMENT, "publish_context." + PublishContext.HOST_NQN,
                stageOwn("pvc-6", Map.of(PublishContext.DHCHAP_SECRET, KEY)));
        assertRefused(Status.Code.FAILED_PRECONDITION, PublishContext.DHCHAP_SECRET,
                stageOwn("pvc-6", Map.of(PublishContext.HOST_NQN, PublicationHost.nqn(NODE, "pvc-6").value())));
        assertRefused(Status.Code.INVALID_ARGUMENT, "publish_context." + PublishContext.HOST_NQN,
                stageOwn("pvc-6", Map.of(PublishContext.HOST_NQN, "not an nqn", PublishContext.DHCHAP_SECRET, KEY)));
        assertRefused(Status.Code.UNAVAILABLE, "EKEYREJECTED", stageOwn("pvc-6", Map.of(PublishContext.HOST_NQN,
                PublicationHost.nqn(NODE, "pvc-6").value(), PublishContext.DHCHAP_SECRET, OTHER_KEY)));
        assertThat(node.initiator.count("connect")).as("only the wrong key reached a connect").isEqualTo(1);
    }

    @Test
    void anotherPublicationsHostNqnIsRefusedAsTheKernelRefusesIt() {
        NodeStageVolumeRequest borrowed = stageOwn("pvc-8", Map.of(PublishContext.HOST_NQN,
                PublicationHost.nqn("worker-2", "pvc-8").value(), PublishContext.DHCHAP_SECRET, KEY));
        node.initiator.admitOnly(NodeFixture.nqn("pvc-8"), PublicationHost.nqn(NODE, "pvc-8"));
        assertRefused(Status.Code.UNAVAILABLE, "not allowed", borrowed);
    }

    private static String read(java.nio.file.Path file) {
        try {
            return Files.readString(file).strip();
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    @Test
    void anUnknownAuthIsInvalid() {
        NodeStageVolumeRequest request = stage("pvc-4", Map.of(StageSecrets.hostKey(NODE), KEY));
        assertRefused(Status.Code.INVALID_ARGUMENT, "publish_context.auth",
                request.toBuilder().putPublishContext(PublishContext.AUTH, "kerberos").build());
    }
}
