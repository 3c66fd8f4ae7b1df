package pillar.controller.csi.auth;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static pillar.controller.csi.CsiAssertions.assertCode;
import static pillar.controller.csi.CsiHarness.GIB;
import static pillar.controller.csi.Requests.NODE_A;
import static pillar.controller.csi.Requests.NODE_B;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.grpc.Status;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import pillar.api.agent.v1.HostAuth;
import pillar.api.context.PublishContext;
import pillar.api.context.StageSecrets;
import pillar.api.csi.v1.VolumeCapability.AccessMode.Mode;
import pillar.api.value.Nqn;
import pillar.controller.auth.DhchapKey;
import pillar.controller.auth.NodeSecrets;
import pillar.controller.crd.NvmeofTcp;
import pillar.controller.crd.PillarProtocol;
import pillar.controller.csi.CsiHarness;
import pillar.controller.csi.Requests;
import pillar.controller.reconcile.ControllerHarness;

/**
 * A protocol with {@code auth: required}: the controller generates each node's DH-HMAC-CHAP
 * secrets into one Secret per node, gives them to the target with AllowInitiator, writes them to the
 * volume's stage Secret for the published nodes only, and rotates them when a node's Secret is
 * deleted; an agent without nvmet authentication is FAILED_PRECONDITION NvmeAuthUnsupported with
 * nothing written. No secret value reaches a log record, an event, a volume state or a publish context.
 */
class HostAuthenticationIT {
    private static final String NS = ControllerHarness.NAMESPACE;

    @RegisterExtension
    final CsiHarness harness = CsiHarness.withFakeAgent();
    private final List<String> logged = new ArrayList<>();
    private final Handler capture = new Handler() {
        @Override
        public void publish(LogRecord record) {
            synchronized (logged) {
                logged.add(String.valueOf(record.getMessage()) + " " + String.valueOf(record.getThrown()));
            }
        }

        @Override
        public void flush() {
        }

        @Override
        public void close() {
        }
    };

    @BeforeEach
    void authRequiredAndLogsCaptured() {
        capture.setLevel(Level.ALL);
        Logger.getLogger("").addHandler(capture);
        Logger.getLogger("pillar").setLevel(Level.ALL);
        harness.fakeAgent().nvmeAuth(true);
        harness.client().resources(PillarProtocol.class).withName(CsiHarness.PROTOCOL).edit(p -> {
            p.getSpec().getNvmeofTcp().setAuth(NvmeofTcp.Auth.REQUIRED);
            return p;
        });
    }

    @AfterEach
    void stop() {
        Logger.getLogger("").removeHandler(capture);
    }

    @Test
    void publishGivesTheTargetAndTheStageSecretTheNodesOwnSecretsAndNothingElse() {
        harness.csi().createVolume(Requests.create("pvc-a1", GIB));
        assertThat(harness.fakeAgent().exports().get("pvc-a1").spec().getAuthRequired()).isTrue();
        assertThat(harness.state("pvc-a1").orElseThrow().getSpec().getExport().requiresAuth()).isTrue();

        Map<String, String> context = harness.csi().controllerPublishVolume(Requests.publish("pvc-a1", NODE_A,
                Requests.mount(Mode.MULTI_NODE_READER_ONLY, "ext4"), true)).getPublishContextMap();
        assertThat(context).containsEntry(PublishContext.AUTH, PublishContext.AUTH_DHCHAP);

        Secret nodeSecret = nodeSecret(NODE_A).orElseThrow();
        assertThat(nodeSecret.getMetadata().getOwnerReferences()).isNullOrEmpty();
        assertThat(nodeSecret.getMetadata().getLabels()).containsEntry("app.kubernetes.io/managed-by", "pillar-controller")
                .containsEntry(NodeSecrets.ROLE, "node");
        assertThat(nodeSecret.getMetadata().getAnnotations()).containsEntry(NodeSecrets.NODE_ID, NODE_A);
        String hostKey = value(nodeSecret, "dhchap-secret");
        String controllerKey = value(nodeSecret, "dhchap-ctrl-secret");
        assertThat(DhchapKey.isWellFormed(hostKey)).isTrue();
        assertThat(DhchapKey.isWellFormed(controllerKey)).isTrue();
        assertThat(hostKey).isNotEqualTo(controllerKey);

        HostAuth given = harness.fakeAgent().hostAuth("pvc-a1", NODE_A).orElseThrow();
        assertThat(given.getHostKey()).isEqualTo(hostKey);
        assertThat(given.getControllerKey()).isEqualTo(controllerKey);
        assertThat(given.getHash()).isEqualTo("hmac(sha256)");
        assertThat(given.getDhGroup()).isEqualTo("ffdhe2048");
        assertThat(stage("pvc-a1")).isEqualTo(Map.of(StageSecrets.hostKey(NODE_A), hostKey,
                StageSecrets.controllerKey(NODE_A), controllerKey));

        // a second node gets its own secrets; only the published nodes are in the stage Secret
        harness.csi().controllerPublishVolume(Requests.publish("pvc-a1", NODE_B, Requests.mount(Mode.MULTI_NODE_READER_ONLY,
                "ext4"), true));
        String hostKeyB = value(nodeSecret(NODE_B).orElseThrow(), "dhchap-secret");
        assertThat(hostKeyB).isNotEqualTo(hostKey);
        assertThat(stage("pvc-a1")).containsOnlyKeys(StageSecrets.hostKey(NODE_A), StageSecrets.controllerKey(NODE_A),
                StageSecrets.hostKey(NODE_B), StageSecrets.controllerKey(NODE_B));
        harness.csi().controllerUnpublishVolume(Requests.unpublish("pvc-a1", NODE_A));
        assertThat(stage("pvc-a1")).containsOnlyKeys(StageSecrets.hostKey(NODE_B), StageSecrets.controllerKey(NODE_B));
        assertThat(harness.fakeAgent().hostAuth("pvc-a1", NODE_A)).isEmpty();
        // the node's own Secret stays: it is the node's, not the volume's
        assertThat(nodeSecret(NODE_A)).isPresent();

        harness.csi().controllerUnpublishVolume(Requests.unpublish("pvc-a1", NODE_B));
        harness.csi().deleteVolume(Requests.delete("pvc-a1"));
        assertThat(harness.client().secrets().inNamespace(NS).withName("pillar-auth-pvc-a1").get()).isNull();

        List<String> secrets = List.of(hostKey, controllerKey, hostKeyB);
        assertNowhere(secrets, context.toString());
    }

    @Test
    void deletingANodesSecretRotatesItOnEveryExportAtTheNextPublish() {
        for (String volume : List.of("pvc-r1", "pvc-r2")) {
            harness.csi().createVolume(Requests.create(volume, GIB));
            harness.csi().controllerPublishVolume(Requests.publish(volume, NODE_A, Requests.rwo(), false));
        }
        String old = value(nodeSecret(NODE_A).orElseThrow(), "dhchap-secret");
        assertThat(harness.fakeAgent().hostAuth("pvc-r2", NODE_A).orElseThrow().getHostKey()).isEqualTo(old);

        harness.client().secrets().inNamespace(NS).withName(NodeSecrets.secretName(Nqn.of(NODE_A))).delete();
        await().until(() -> nodeSecret(NODE_A).isEmpty());
        // the next publish to the node (here a repeat of one already made) generates and spreads new secrets
        harness.csi().controllerPublishVolume(Requests.publish("pvc-r1", NODE_A, Requests.rwo(), false));
        Secret rotated = nodeSecret(NODE_A).orElseThrow();
        String fresh = value(rotated, "dhchap-secret");
        String freshController = value(rotated, "dhchap-ctrl-secret");
        assertThat(fresh).isNotEqualTo(old);
        for (String volume : List.of("pvc-r1", "pvc-r2")) {
            assertThat(harness.fakeAgent().hostAuth(volume, NODE_A).orElseThrow().getHostKey()).as(volume).isEqualTo(fresh);
            assertThat(harness.fakeAgent().hostAuth(volume, NODE_A).orElseThrow().getControllerKey()).isEqualTo(freshController);
            assertThat(stage(volume)).as(volume).containsEntry(StageSecrets.hostKey(NODE_A), fresh)
                    .containsEntry(StageSecrets.controllerKey(NODE_A), freshController);
        }
        // a node Secret whose values the kernel would refuse is replaced the same way
        harness.client().secrets().inNamespace(NS).withName(NodeSecrets.secretName(Nqn.of(NODE_A))).edit(s -> {
            s.setData(Map.of("dhchap-secret", Base64.getEncoder().encodeToString("DHHC-1:00:bad:".getBytes(StandardCharsets.UTF_8)),
                    "dhchap-ctrl-secret", s.getData().get("dhchap-ctrl-secret")));
            return s;
        });
        harness.csi().controllerPublishVolume(Requests.publish("pvc-r2", NODE_A, Requests.rwo(), false));
        String replaced = value(nodeSecret(NODE_A).orElseThrow(), "dhchap-secret");
        assertThat(DhchapKey.isWellFormed(replaced)).isTrue();
        assertThat(replaced).isNotEqualTo(fresh);
        for (String volume : List.of("pvc-r1", "pvc-r2")) {
            assertThat(harness.fakeAgent().hostAuth(volume, NODE_A).orElseThrow().getHostKey()).as(volume).isEqualTo(replaced);
        }
        assertNowhere(List.of(old, fresh, freshController, replaced), "");
    }

    @Test
    void anAgentWithoutNvmetAuthenticationIsRefusedWithItsReasonAndNothingChanges() {
        harness.fakeAgent().nvmeAuth(false);
        String refused = assertCode(Status.Code.FAILED_PRECONDITION, () -> harness.csi().createVolume(Requests.create("pvc-n1", GIB)));
        assertThat(refused).contains("NvmeAuthUnsupported").contains(CsiHarness.AGENT);
        assertThat(harness.state("pvc-n1")).isEmpty();
        assertThat(harness.fakeAgent().volumes()).isEmpty();

        harness.fakeAgent().nvmeAuth(true);
        harness.csi().createVolume(Requests.create("pvc-n1", GIB));
        harness.fakeAgent().nvmeAuth(false);
        refused = assertCode(Status.Code.FAILED_PRECONDITION, () -> harness.csi().controllerPublishVolume(
                Requests.publish("pvc-n1", NODE_A, Requests.rwo(), false)));
        assertThat(refused).contains("NvmeAuthUnsupported");
        assertThat(harness.state("pvc-n1").orElseThrow().getStatus().getPublications()).isEmpty();
        assertThat(harness.fakeAgent().allowedHosts("pvc-n1")).isEmpty();
        assertThat(harness.client().secrets().inNamespace(NS).withName("pillar-auth-pvc-n1").get()).isNull();
    }

    @Test
    void aVolumeNameThatMakesNoSecretNameIsRefusedBeforeAnythingIsWritten() {
        String refused = assertCode(Status.Code.INVALID_ARGUMENT, () -> harness.csi().createVolume(Requests.create("PVC-Upper", GIB)));
        assertThat(refused).contains("pillar-auth-");
        assertThat(harness.states()).isEmpty();
    }

    /** No secret in a log record, an event, a volume state, or the extra text given. */
    private void assertNowhere(List<String> secrets, String extra) {
        String events = Serialization.asJson(harness.client().v1().events().inNamespace(NS).list().getItems());
        String states = Serialization.asJson(harness.states());
        String logs;
        synchronized (logged) {
            logs = String.join("\n", logged);
        }
        assertThat(logs).as("captured log records").isNotEmpty();
        for (String secret : secrets) {
            String body = secret.substring("DHHC-1:00:".length(), secret.length() - 1);
            assertThat(logs).doesNotContain(body);
            assertThat(events).doesNotContain(body);
            assertThat(states).doesNotContain(body);
            assertThat(extra).doesNotContain(body);
        }
    }

    private Optional<Secret> nodeSecret(String node) {
        return Optional.ofNullable(harness.client().secrets().inNamespace(NS).withName(NodeSecrets.secretName(Nqn.of(node))).get());
    }

    private Map<String, String> stage(String volume) {
        Secret secret = harness.client().secrets().inNamespace(NS).withName("pillar-auth-" + volume).get();
        assertThat(secret).as("stage Secret of " + volume).isNotNull();
        Map<String, String> out = new java.util.TreeMap<>();
        secret.getData().keySet().forEach(k -> out.put(k, value(secret, k)));
        return out;
    }

    private static String value(Secret secret, String key) {
        return new String(Base64.getDecoder().decode(secret.getData().get(key)), StandardCharsets.UTF_8);
    }
}
