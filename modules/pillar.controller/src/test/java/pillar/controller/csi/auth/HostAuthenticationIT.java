package pillar.controller.csi.auth;

import static org.assertj.core.api.Assertions.assertThat;
import static pillar.controller.csi.CsiAssertions.assertCode;
import static pillar.controller.csi.CsiHarness.GIB;
import static pillar.controller.csi.Requests.NODE_A;
import static pillar.controller.csi.Requests.NODE_B;
import static pillar.controller.csi.auth.KeyedPublications.encode;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.grpc.Status;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import pillar.api.agent.v1.HostAuth;
import pillar.api.context.PublishContext;
import pillar.api.context.StageSecrets;
import pillar.controller.auth.DhchapKey;
import pillar.controller.auth.PublicationKeys;
import pillar.controller.agent.AgentTarget;
import pillar.controller.crd.PillarVolumeState;
import pillar.controller.volume.state.Records;
import pillar.api.agent.v1.AllowInitiatorRequest;
import pillar.api.context.PublicationHost;
import pillar.controller.crd.NvmeofTcp;
import pillar.controller.csi.CsiHarness;
import pillar.controller.csi.Requests;
import pillar.controller.reconcile.ControllerHarness;

/**
 * A protocol with {@code auth: required}: each publication (node, volume) is admitted as a host NQN of
 * its own with keys of its own, recorded only in the controller's {@code pillar-keys-<volume>} Secret
 * and handed to that node alone in its publish context; the stage Secret kubelet gives every node of
 * the volume holds no key; a live publication's keys never change (a repeat returns them), a new one
 * gets new keys; a publication made before keeps its node's keys until its unpublish, which withdraws
 * both grants; an agent without nvmet authentication is FAILED_PRECONDITION NvmeAuthUnsupported with
 * nothing written. No secret value reaches a log record, an event or a volume state.
 */
class HostAuthenticationIT {
    private static final String NS = ControllerHarness.NAMESPACE;

    @RegisterExtension
    final CsiHarness harness = CsiHarness.withFakeAgent();
    @RegisterExtension
    final SecretLeaks leaks = new SecretLeaks();

    @BeforeEach
    void authRequired() {
        harness.fakeAgent().nvmeAuth(true);
        KeyedPublications.protocol(harness, tcp -> tcp.setAuth(NvmeofTcp.Auth.REQUIRED));
    }

    @Test
    void eachPublicationHasItsOwnHostAndKeysAndNothingANodeCanReadHoldsAnotherNodesKey() {
        harness.csi().createVolume(Requests.create("pvc-a1", GIB));
        assertThat(harness.fakeAgent().exports().get("pvc-a1").spec().getAuthRequired()).isTrue();
        Map<String, String> contextA = publish("pvc-a1", NODE_A);
        Map<String, String> contextB = publish("pvc-a1", NODE_B);
        String hostA = PublicationHost.nqn(NODE_A, "pvc-a1").value();
        String hostB = PublicationHost.nqn(NODE_B, "pvc-a1").value();

        assertThat(contextA).containsEntry(PublishContext.AUTH, PublishContext.AUTH_DHCHAP)
                .containsEntry(PublishContext.HOST_NQN, hostA);
        assertThat(contextB).containsEntry(PublishContext.HOST_NQN, hostB);
        assertThat(hostA).isNotEqualTo(hostB).isNotEqualTo(NODE_A);
        List<String> keysA = keys(contextA);
        List<String> keysB = keys(contextB);
        assertThat(keysA).allMatch(DhchapKey::isWellFormed).doesNotHaveDuplicates().doesNotContainAnyElementsOf(keysB);

        // the target admits each publication's NQN with that publication's keys, and no node NQN
        assertThat(harness.fakeAgent().allowedHosts("pvc-a1")).containsExactlyInAnyOrder(hostA, hostB);
        HostAuth givenA = harness.fakeAgent().hostAuth("pvc-a1", hostA).orElseThrow();
        assertThat(List.of(givenA.getHostKey(), givenA.getControllerKey())).isEqualTo(keysA);
        assertThat(givenA.getHash()).isEqualTo("hmac(sha256)");
        assertThat(givenA.getDhGroup()).isEqualTo("ffdhe2048");
        assertThat(harness.fakeAgent().hostAuth("pvc-a1", NODE_A)).isEmpty();

        // what node A can read: its own publish context, and the stage Secret kubelet hands it (no key at all)
        assertThat(stageSecret("pvc-a1").getData()).isNullOrEmpty();
        String readableByA = contextA + " " + Serialization.asJson(stageSecret("pvc-a1"));
        keysB.forEach(key -> assertThat(readableByA).doesNotContain(body(key)));

        // the record is the controller's own Secret, which no StorageClass or PV names
        Secret record = harness.client().secrets().inNamespace(NS).withName(PublicationKeys.PREFIX + "pvc-a1").get();
        assertThat(record.getMetadata().getLabels()).containsEntry("app.kubernetes.io/managed-by", "pillar-controller")
                .containsEntry("pillar.csi.io/dhchap", PublicationKeys.ROLE_VALUE);
        assertThat(record.getData()).containsOnlyKeys(StageSecrets.hostKey(NODE_A), StageSecrets.controllerKey(NODE_A),
                StageSecrets.hostKey(NODE_B), StageSecrets.controllerKey(NODE_B));

        // a repeat is the same publication: the same keys
        assertThat(publish("pvc-a1", NODE_A)).isEqualTo(contextA);

        // unpublish withdraws A's NQN and forgets its keys; B's publication is untouched; A's next publication is new keys
        harness.csi().controllerUnpublishVolume(Requests.unpublish("pvc-a1", NODE_A));
        assertThat(harness.fakeAgent().allowedHosts("pvc-a1")).containsExactly(hostB);
        assertThat(harness.client().secrets().inNamespace(NS).withName(PublicationKeys.PREFIX + "pvc-a1").get().getData())
                .containsOnlyKeys(StageSecrets.hostKey(NODE_B), StageSecrets.controllerKey(NODE_B));
        Map<String, String> again = publish("pvc-a1", NODE_A);
        assertThat(keys(again)).doesNotContainAnyElementsOf(keysA);
        assertThat(harness.fakeAgent().hostAuth("pvc-a1", hostB).orElseThrow().getHostKey()).isEqualTo(keysB.get(0));

        harness.csi().controllerUnpublishVolume(Requests.unpublish("pvc-a1", NODE_A));
        harness.csi().controllerUnpublishVolume(Requests.unpublish("pvc-a1", NODE_B));
        harness.csi().deleteVolume(Requests.delete("pvc-a1"));
        assertThat(harness.client().secrets().inNamespace(NS).withName("pillar-auth-pvc-a1").get()).isNull();
        assertThat(harness.client().secrets().inNamespace(NS).withName(PublicationKeys.PREFIX + "pvc-a1").get()).isNull();

        List<String> all = new ArrayList<>(keysA);
        all.addAll(keysB);
        all.addAll(keys(again));
        leaks.assertNowhere(harness, all.stream().map(HostAuthenticationIT::body).toList());
    }

    @Test
    void aPublicationMadeBeforeKeepsItsNodeKeysUntilItsUnpublishWithdrawsBothGrants() {
        harness.csi().createVolume(Requests.create("pvc-l1", GIB));
        publish("pvc-l1", NODE_B);
        publish("pvc-l1", NODE_A);
        // as the version before also left it: node A admitted as itself, its node keys in the stage Secret
        String legacyKey = DhchapKey.generate(new java.security.SecureRandom());
        String legacyCtrl = DhchapKey.generate(new java.security.SecureRandom());
        harness.client().secrets().inNamespace(NS).withName("pillar-auth-pvc-l1").edit(s -> {
            s.setData(Map.of(StageSecrets.hostKey(NODE_A), encode(legacyKey), StageSecrets.controllerKey(NODE_A), encode(legacyCtrl)));
            return s;
        });
        PillarVolumeState state = harness.state("pvc-l1").orElseThrow();
        harness.fakeAgents().allowInitiator(AgentTarget.plaintext(CsiHarness.FAKE_HOST, 9500), AllowInitiatorRequest.newBuilder()
                .setToken(Records.token(state).toProto()).setVolumeId("pvc-l1").setHostNqn(NODE_A)
                .setAuth(HostAuth.newBuilder().setHostKey(legacyKey).setControllerKey(legacyCtrl)).build());
        String hostB = PublicationHost.nqn(NODE_B, "pvc-l1").value();
        String hostA = PublicationHost.nqn(NODE_A, "pvc-l1").value();
        assertThat(harness.fakeAgent().allowedHosts("pvc-l1")).containsExactlyInAnyOrder(hostB, hostA, NODE_A);

        // another publication leaves the older one's key where it is: nothing rewrites a live key
        harness.csi().controllerUnpublishVolume(Requests.unpublish("pvc-l1", NODE_B));
        publish("pvc-l1", NODE_B);
        assertThat(harness.fakeAgent().hostAuth("pvc-l1", NODE_A).orElseThrow().getHostKey()).isEqualTo(legacyKey);

        harness.csi().controllerUnpublishVolume(Requests.unpublish("pvc-l1", NODE_A));
        assertThat(harness.fakeAgent().allowedHosts("pvc-l1")).containsExactly(hostB);
        assertThat(stageSecret("pvc-l1").getData()).isNullOrEmpty();
    }

    @Test
    void aRepeatedSingleNodePublishNeverDropsTheLiveGrantOfAPublicationMadeBefore() {
        harness.csi().createVolume(Requests.create("pvc-l2", GIB));
        var rwo = Requests.publish("pvc-l2", NODE_A, Requests.rwo(), false);
        harness.csi().controllerPublishVolume(rwo);
        // as the version before left it: node A admitted (and connected) as itself, its keys in the stage Secret
        String legacyKey = DhchapKey.generate(new java.security.SecureRandom());
        String legacyCtrl = DhchapKey.generate(new java.security.SecureRandom());
        harness.client().secrets().inNamespace(NS).withName("pillar-auth-pvc-l2").edit(s -> {
            s.setData(Map.of(StageSecrets.hostKey(NODE_A), encode(legacyKey), StageSecrets.controllerKey(NODE_A), encode(legacyCtrl)));
            return s;
        });
        PillarVolumeState state = harness.state("pvc-l2").orElseThrow();
        harness.fakeAgents().allowInitiator(AgentTarget.plaintext(CsiHarness.FAKE_HOST, 9500), AllowInitiatorRequest.newBuilder()
                .setToken(Records.token(state).toProto()).setVolumeId("pvc-l2").setHostNqn(NODE_A)
                .setAuth(HostAuth.newBuilder().setHostKey(legacyKey).setControllerKey(legacyCtrl)).build());

        // the attacher's retry: an exclusive allow of the publication's own NQN would drop the live one
        harness.csi().controllerPublishVolume(rwo);
        String hostA = PublicationHost.nqn(NODE_A, "pvc-l2").value();
        assertThat(harness.fakeAgent().allowedHosts("pvc-l2")).containsExactlyInAnyOrder(hostA, NODE_A);

        harness.csi().controllerUnpublishVolume(Requests.unpublish("pvc-l2", NODE_A));
        assertThat(harness.fakeAgent().allowedHosts("pvc-l2")).isEmpty();
    }

    @Test
    void aMalformedKeyRecordOfAPublicationIsAPreconditionAndReplacesNothing() {
        harness.csi().createVolume(Requests.create("pvc-m1", GIB));
        Map<String, String> context = publish("pvc-m1", NODE_A);
        harness.client().secrets().inNamespace(NS).withName(PublicationKeys.PREFIX + "pvc-m1").edit(s -> {
            s.getData().put(StageSecrets.hostKey(NODE_A), encode("DHHC-1:00:bad:"));
            return s;
        });
        String refused = assertCode(Status.Code.FAILED_PRECONDITION, () -> publish("pvc-m1", NODE_A));
        assertThat(refused).contains(PublicationKeys.PREFIX + "pvc-m1").doesNotContain(body(keys(context).get(1)));
        assertThat(harness.fakeAgent().hostAuth("pvc-m1", context.get(PublishContext.HOST_NQN)).orElseThrow().getHostKey())
                .as("the target keeps the key the node connected with").isEqualTo(keys(context).get(0));
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

    private Map<String, String> publish(String volume, String node) {
        return KeyedPublications.publish(harness, volume, node);
    }

    private static List<String> keys(Map<String, String> context) {
        return List.of(context.get(PublishContext.DHCHAP_SECRET), context.get(PublishContext.DHCHAP_CTRL_SECRET));
    }

    private static String body(String secret) {
        return secret.substring("DHHC-1:00:".length(), secret.length() - 1);
    }

    private Secret stageSecret(String volume) {
        Secret secret = harness.client().secrets().inNamespace(NS).withName("pillar-auth-" + volume).get();
        assertThat(secret).as("stage Secret of " + volume).isNotNull();
        return secret;
    }
}
