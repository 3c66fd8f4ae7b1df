package pillar.controller.csi.exportspec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static pillar.controller.csi.CsiAssertions.assertCode;
import static pillar.controller.csi.CsiHarness.GIB;
import static pillar.controller.csi.Requests.NODE_A;

import java.util.Optional;

import io.grpc.Status;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import pillar.api.context.PublishContext;
import pillar.controller.crd.Condition;
import pillar.controller.crd.Conditions;
import pillar.controller.crd.PillarVolumeState;
import pillar.controller.csi.CsiHarness;
import pillar.controller.csi.Requests;
import pillar.controller.reconcile.ControllerHarness;
import pillar.controller.volume.VolumeStateReconciler;

/**
 * A volume whose state lacks its export spec (left by an older controller, or restored without it)
 * reports ExportSpecMissing, in its status and as a Warning event, and is never published on a
 * guessed spec. The recovery is the operator's explicit annotation: a malformed one, or one the
 * agent contradicts, is reported and recorded nowhere; a right one is recorded and publishing works.
 */
class ExportSpecMissingIT {
    @RegisterExtension
    final CsiHarness harness = CsiHarness.withFakeAgent();

    @BeforeEach
    void aVolumeWithoutItsExportSpec() {
        harness.csi().createVolume(Requests.create("pvc-legacy", GIB));
        // what an older controller left: the same volume, exported on the agent, but no export spec recorded
        harness.client().resources(PillarVolumeState.class).withName("pvc-legacy").edit(s -> {
            s.getSpec().setExport(null);
            return s;
        });
    }

    @Test
    void reportedNeverGuessedAndRecoveredByTheOperatorsExplicitSpec() {
        Condition missing = awaitCondition(Condition.TRUE, VolumeStateReconciler.NO_EXPORT_SPEC);
        assertThat(missing.getMessage()).contains("kubectl annotate pillarvolumestate pvc-legacy " + PillarVolumeState.EXPORT_SPEC_ANNOTATION);
        await().atMost(ControllerHarness.PATIENCE).until(() -> harness.client().v1().events().inNamespace(ControllerHarness.NAMESPACE)
                .list().getItems().stream().anyMatch(e -> "pvc-legacy".equals(e.getInvolvedObject().getName())
                        && "Warning".equals(e.getType()) && VolumeStateReconciler.NO_EXPORT_SPEC.equals(e.getReason())));

        String refused = assertCode(Status.Code.FAILED_PRECONDITION, () -> harness.csi().controllerPublishVolume(
                Requests.publish("pvc-legacy", NODE_A, Requests.rwo(), false)));
        assertThat(refused).contains(PillarVolumeState.EXPORT_SPEC_MISSING).contains(PillarVolumeState.EXPORT_SPEC_ANNOTATION);
        assertThat(harness.fakeAgent().allowedHosts("pvc-legacy")).isEmpty();
        assertThat(harness.state("pvc-legacy").orElseThrow().getStatus().getPublications()).isEmpty();

        annotate("bindAddress=evil.example.com,port=4420,aclEnabled=true");
        assertThat(awaitCondition(Condition.TRUE, VolumeStateReconciler.INVALID_ANNOTATION).getMessage()).contains("bindAddress");
        assertThat(harness.state("pvc-legacy").orElseThrow().getSpec().getExport()).isNull();

        annotate("bindAddress=192.0.2.10,port=4421,aclEnabled=true");
        awaitCondition(Condition.TRUE, VolumeStateReconciler.CONFLICT);
        assertThat(harness.state("pvc-legacy").orElseThrow().getSpec().getExport()).isNull();
        assertThat(harness.fakeAgent().exports().get("pvc-legacy").spec().getPort()).isEqualTo(4420);

        annotate("bindAddress=192.0.2.10,port=4420,aclEnabled=true");
        awaitCondition(Condition.FALSE, VolumeStateReconciler.RECORDED);
        assertThat(harness.state("pvc-legacy").orElseThrow().getSpec().getExport().toString())
                .isEqualTo("bindAddress=192.0.2.10,port=4420,aclEnabled=true,traddr=192.0.2.10");
        var context = harness.csi().controllerPublishVolume(Requests.publish("pvc-legacy", NODE_A, Requests.rwo(), false))
                .getPublishContextMap();
        assertThat(context).containsEntry(PublishContext.TRADDR, "192.0.2.10").containsEntry(PublishContext.TRSVCID, "4420");
        assertThat(harness.fakeAgent().allowedHosts("pvc-legacy")).containsExactly(NODE_A);
    }

    private void annotate(String spec) {
        harness.client().resources(PillarVolumeState.class).withName("pvc-legacy").edit(s -> {
            s.getMetadata().getAnnotations().put(PillarVolumeState.EXPORT_SPEC_ANNOTATION, spec);
            return s;
        });
    }

    private Condition awaitCondition(String status, String reason) {
        return await().atMost(ControllerHarness.PATIENCE).until(() -> harness.state("pvc-legacy")
                        .flatMap(s -> Optional.ofNullable(s.getStatus()))
                        .flatMap(s -> Conditions.find(s.getConditions(), PillarVolumeState.EXPORT_SPEC_MISSING)),
                c -> c.isPresent() && status.equals(c.get().getStatus()) && reason.equals(c.get().getReason())).orElseThrow();
    }
}
