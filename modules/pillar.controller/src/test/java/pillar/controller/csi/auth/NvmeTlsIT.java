package pillar.controller.csi.auth;

import static org.assertj.core.api.Assertions.assertThat;
import static pillar.controller.csi.CsiAssertions.assertCode;
import static pillar.controller.csi.CsiHarness.GIB;
import static pillar.controller.csi.Requests.NODE_A;
import static pillar.controller.csi.Requests.NODE_B;
import static pillar.controller.csi.auth.KeyedPublications.encode;

import java.util.List;
import java.util.Map;

import io.fabric8.kubernetes.api.model.Secret;
import io.grpc.Status;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import pillar.api.agent.v1.ExportSpec;
import pillar.api.context.PublicationHost;
import pillar.api.context.PublishContext;
import pillar.api.context.StageSecrets;
import pillar.api.value.TlsPsk;
import pillar.controller.auth.PublicationKeys;
import pillar.controller.crd.NvmeofTcp;
import pillar.controller.crd.TlsMode;
import pillar.controller.csi.CsiHarness;
import pillar.controller.csi.Requests;
import pillar.controller.reconcile.ControllerHarness;

/**
 * A protocol with {@code tls: required}: the export asks the agent for a TLS-only port; each publication
 * (node, volume) gets a pre-shared key of its own, recorded only in the controller's
 * {@code pillar-keys-<volume>} Secret, given to the agent for the host NQN the node connects as (its own
 * without DH-HMAC-CHAP, the publication's with it) and to that node alone in its publish context; a repeat
 * returns the same key, an unpublish forgets it, a deletion the Secret. An agent that does not report
 * nvme_tls (an older release, an older kernel) is FAILED_PRECONDITION NvmeTlsUnsupported and never asked
 * to export or admit anything. No key reaches a log record, an event, a volume state or an error.
 */
class NvmeTlsIT {
    private static final String NS = ControllerHarness.NAMESPACE;

    @RegisterExtension
    final CsiHarness harness = CsiHarness.withFakeAgent();
    @RegisterExtension
    final SecretLeaks leaks = new SecretLeaks();

    @BeforeEach
    void tlsRequired() {
        harness.fakeAgent().nvmeTls(true);
        KeyedPublications.protocol(harness, tcp -> tcp.setTls(TlsMode.REQUIRED));
    }

    @Test
    void eachPublicationHasItsOwnKeyForTheNodesOwnNqnAndItLastsAsLongAsThePublication() {
        harness.csi().createVolume(Requests.create("pvc-t1", GIB));
        ExportSpec exported = harness.fakeAgent().exports().get("pvc-t1").spec();
        assertThat(exported.getTlsRequired()).isTrue();
        assertThat(exported.getAuthRequired()).isFalse();
        assertThat(harness.state("pvc-t1").orElseThrow().getSpec().getExport().requiresTls()).isTrue();

        Map<String, String> contextA = publish("pvc-t1", NODE_A);
        Map<String, String> contextB = publish("pvc-t1", NODE_B);
        assertThat(contextA).containsEntry(PublishContext.TLS, PublishContext.TLS_13)
                .doesNotContainKeys(PublishContext.HOST_NQN, PublishContext.AUTH, PublishContext.DHCHAP_SECRET);
        String keyA = key(contextA);
        String keyB = key(contextB);
        assertThat(keyA).isNotEqualTo(keyB);
        assertThat(TlsPsk.of("a", keyA).bytes()).hasSize(TlsPsk.GENERATED_LENGTH);

        // without DH-HMAC-CHAP the node connects as itself: the agent holds each key under the node's NQN
        assertThat(harness.fakeAgent().allowedHosts("pvc-t1")).containsExactlyInAnyOrder(NODE_A, NODE_B);
        assertThat(harness.fakeAgent().tlsPsk("pvc-t1", NODE_A)).contains(keyA);
        assertThat(harness.fakeAgent().tlsPsk("pvc-t1", NODE_B)).contains(keyB);

        // the record is the controller's own Secret, one entry per node; no stage Secret is made for TLS alone
        assertThat(record("pvc-t1").getData()).containsOnlyKeys(PublicationKeys.tlsKey(NODE_A), PublicationKeys.tlsKey(NODE_B));
        assertThat(record("pvc-t1").getMetadata().getLabels()).containsEntry("pillar.csi.io/dhchap", PublicationKeys.ROLE_VALUE);
        assertThat(harness.client().secrets().inNamespace(NS).withName("pillar-auth-pvc-t1").get()).isNull();

        // a repeat is the same publication: the same key
        assertThat(publish("pvc-t1", NODE_A)).isEqualTo(contextA);
        assertThat(harness.fakeAgent().tlsPsk("pvc-t1", NODE_A)).contains(keyA);

        // unpublish forgets A's key on the agent and in the record; B's stays; A's next publication is a new key
        harness.csi().controllerUnpublishVolume(Requests.unpublish("pvc-t1", NODE_A));
        assertThat(harness.fakeAgent().tlsPsk("pvc-t1", NODE_A)).isEmpty();
        assertThat(record("pvc-t1").getData()).containsOnlyKeys(PublicationKeys.tlsKey(NODE_B));
        String again = key(publish("pvc-t1", NODE_A));
        assertThat(again).isNotIn(keyA, keyB);
        assertThat(harness.fakeAgent().tlsPsk("pvc-t1", NODE_B)).contains(keyB);

        harness.csi().controllerUnpublishVolume(Requests.unpublish("pvc-t1", NODE_A));
        harness.csi().controllerUnpublishVolume(Requests.unpublish("pvc-t1", NODE_B));
        harness.csi().deleteVolume(Requests.delete("pvc-t1"));
        assertThat(harness.client().secrets().inNamespace(NS).withName(PublicationKeys.PREFIX + "pvc-t1").get()).isNull();
        leaks.assertNowhere(harness, List.of(keyA, keyB, again));
    }

    @Test
    void withDhHmacChapTheKeyIsTheOneOfThePublicationsOwnHostNqn() {
        harness.fakeAgent().nvmeAuth(true);
        KeyedPublications.protocol(harness, tcp -> tcp.setAuth(NvmeofTcp.Auth.REQUIRED));
        harness.csi().createVolume(Requests.create("pvc-t2", GIB));
        ExportSpec exported = harness.fakeAgent().exports().get("pvc-t2").spec();
        assertThat(exported.getTlsRequired()).isTrue();
        assertThat(exported.getAuthRequired()).isTrue();

        Map<String, String> context = publish("pvc-t2", NODE_A);
        String host = PublicationHost.nqn(NODE_A, "pvc-t2").value();
        assertThat(context).containsEntry(PublishContext.HOST_NQN, host).containsEntry(PublishContext.AUTH, PublishContext.AUTH_DHCHAP)
                .containsEntry(PublishContext.TLS, PublishContext.TLS_13).containsKey(PublishContext.DHCHAP_SECRET);
        assertThat(harness.fakeAgent().allowedHosts("pvc-t2")).containsExactly(host);
        assertThat(harness.fakeAgent().tlsPsk("pvc-t2", host)).contains(key(context));
        assertThat(harness.fakeAgent().hostAuth("pvc-t2", host)).isPresent();
        assertThat(record("pvc-t2").getData()).containsOnlyKeys(StageSecrets.hostKey(NODE_A), StageSecrets.controllerKey(NODE_A),
                PublicationKeys.tlsKey(NODE_A));

        harness.csi().controllerUnpublishVolume(Requests.unpublish("pvc-t2", NODE_A));
        assertThat(harness.fakeAgent().tlsPsk("pvc-t2", host)).isEmpty();
        assertThat(record("pvc-t2").getData()).isNullOrEmpty();
        leaks.assertNowhere(harness, List.of(key(context), context.get(PublishContext.DHCHAP_SECRET)));
    }

    @Test
    void anAgentThatDoesNotReportTlsIsRefusedWithItsReasonAndNeverAsked() {
        harness.fakeAgent().nvmeTls(false);
        String refused = assertCode(Status.Code.FAILED_PRECONDITION, () -> harness.csi().createVolume(Requests.create("pvc-t3", GIB)));
        assertThat(refused).contains("NvmeTlsUnsupported").contains(CsiHarness.AGENT).contains("CONFIG_NVME_TARGET_TCP_TLS");
        assertThat(harness.state("pvc-t3")).isEmpty();
        assertThat(calls()).noneMatch(c -> c.startsWith("CreateVolume") || c.startsWith("ExportVolume"));

        harness.fakeAgent().nvmeTls(true);
        harness.csi().createVolume(Requests.create("pvc-t3", GIB));
        harness.fakeAgent().nvmeTls(false);
        int before = calls().size();
        refused = assertCode(Status.Code.FAILED_PRECONDITION, () -> harness.csi().controllerPublishVolume(
                Requests.publish("pvc-t3", NODE_A, Requests.rwo(), false)));
        assertThat(refused).contains("NvmeTlsUnsupported").contains(CsiHarness.AGENT);
        assertThat(calls().subList(before, calls().size())).noneMatch(c -> c.startsWith("AllowInitiator"));
        assertThat(harness.state("pvc-t3").orElseThrow().getStatus().getPublications()).isEmpty();
        assertThat(harness.fakeAgent().allowedHosts("pvc-t3")).isEmpty();
        assertThat(harness.client().secrets().inNamespace(NS).withName(PublicationKeys.PREFIX + "pvc-t3").get()).isNull();
    }

    @Test
    void aMalformedRecordedKeyIsAPreconditionAndReplacesNothing() {
        harness.csi().createVolume(Requests.create("pvc-t4", GIB));
        String key = key(publish("pvc-t4", NODE_A));
        String damaged = key.substring(0, key.length() - 4);
        harness.client().secrets().inNamespace(NS).withName(PublicationKeys.PREFIX + "pvc-t4").edit(s -> {
            s.getData().put(PublicationKeys.tlsKey(NODE_A), encode(damaged));
            return s;
        });
        String refused = assertCode(Status.Code.FAILED_PRECONDITION, () -> publish("pvc-t4", NODE_A));
        assertThat(refused).contains(PublicationKeys.PREFIX + "pvc-t4").contains("TLS key").doesNotContain(damaged);
        assertThat(harness.fakeAgent().tlsPsk("pvc-t4", NODE_A)).as("the target keeps the key the node connected with")
                .contains(key);
        leaks.assertNowhere(harness, List.of(key, damaged));
    }

    private Map<String, String> publish(String volume, String node) {
        return KeyedPublications.publish(harness, volume, node);
    }

    private static String key(Map<String, String> context) {
        String key = context.get(PublishContext.TLS_PSK);
        assertThat(key).as("the publish context's TLS key").isNotNull();
        return key;
    }

    private Secret record(String volume) {
        Secret secret = harness.client().secrets().inNamespace(NS).withName(PublicationKeys.PREFIX + volume).get();
        assertThat(secret).as("key record of " + volume).isNotNull();
        return secret;
    }

    private List<String> calls() {
        return harness.fakeAgents().calls();
    }
}
