package pillar.controller.csi.abandoned;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static pillar.controller.csi.CsiAssertions.assertCode;
import static pillar.controller.csi.CsiHarness.GIB;

import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.Map;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaimBuilder;
import io.grpc.Status;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import pillar.controller.agent.FaultInjectingAgentClient.Fault;
import pillar.controller.agent.FaultInjectingAgentClient.Hold;
import pillar.controller.crd.PillarVolumeState;
import pillar.controller.crd.VolumePhase;
import pillar.controller.csi.CsiHarness;
import pillar.controller.csi.Requests;
import pillar.controller.reconcile.ControllerHarness;

/**
 * A claim deleted while its volume is provisioned: the create that nobody will finish is removed
 * (volume, export, state, with an event) once the grace period has passed since the state was
 * made, at every step CreateVolume can stop at; a completed volume whose claim is gone, and a state
 * that records no claim, are left alone; a CreateVolume retry and the removal never interleave.
 */
class AbandonedCreateIT {
    private static final Duration GRACE = Duration.ofSeconds(2);
    private static final String NAMESPACE = "apps";

    @RegisterExtension
    final CsiHarness harness = CsiHarness.withFakeAgent("--controller.abandoned-create-grace=" + GRACE.toSeconds() + "s");

    @Test
    void aClaimDeletedAtEachStepOfCreateLeavesNothingAfterTheGracePeriodButACompletedVolumeStays() {
        String completed = volumeFor(claim("done"));
        harness.csi().createVolume(create(completed, "done"));
        harness.client().persistentVolumeClaims().inNamespace(NAMESPACE).withName("done").delete();

        String pending = volumeFor(claim("c-pending"));
        pendingState(completed, pending, "c-pending");
        abandonAndAwaitRemoval(pending, "c-pending", VolumePhase.Pending);
        assertThat(harness.fakeAgent().mark(pending)).as("the agent was never asked about a Pending state").isEmpty();

        int n = 0;
        for (String rpc : List.of("CreateVolume", "ExportVolume")) {
            for (Fault fault : Fault.values()) {
                String claim = "c-" + ++n;
                String volume = volumeFor(claim(claim));
                harness.agents.fail(rpc, fault);
                assertCode(fault == Fault.BEFORE ? Status.Code.UNAVAILABLE : Status.Code.DEADLINE_EXCEEDED,
                        () -> harness.csi().createVolume(create(volume, claim)));
                VolumePhase stopped = rpc.equals("CreateVolume") ? VolumePhase.Creating : VolumePhase.Exporting;
                abandonAndAwaitRemoval(volume, claim, stopped);
                assertThat(harness.fakeAgent().mark(volume).orElseThrow().ended()).as(rpc + " " + fault).isTrue();
            }
        }

        // long past its grace period, the completed volume whose claim is gone is its PersistentVolume's business
        PillarVolumeState kept = harness.state(completed).orElseThrow();
        assertThat(Duration.between(created(kept), Instant.now())).isGreaterThan(GRACE.multipliedBy(2));
        assertThat(kept.getStatus().getPhase()).isEqualTo(VolumePhase.Exported);
        assertThat(harness.fakeAgent().volumes()).containsOnlyKeys(completed);
        assertThat(harness.fakeAgent().exports()).containsOnlyKeys(completed);
    }

    @Test
    void aClaimMadeAgainUnderTheSameNameIsAnotherClaimAndDoesNotKeepTheCreate() {
        String volume = volumeFor(claim("again"));
        harness.agents.fail("ExportVolume", Fault.BEFORE);
        assertCode(Status.Code.UNAVAILABLE, () -> harness.csi().createVolume(create(volume, "again")));
        harness.client().persistentVolumeClaims().inNamespace(NAMESPACE).withName("again").delete();
        await().atMost(ControllerHarness.PATIENCE).until(() -> harness.client().persistentVolumeClaims().inNamespace(NAMESPACE)
                .withName("again").get() == null);
        String newUid = claim("again");
        assertThat(volume).doesNotEndWith(newUid);

        awaitRemoved(volume);
        assertThat(removedEvent(volume).getMessage()).contains("exists again, as another claim: UID " + newUid);
    }

    @Test
    void aCreateWhoseClaimStillExistsIsKeptPastTheGracePeriod() {
        String volume = volumeFor(claim("alive"));
        harness.agents.fail("CreateVolume", Fault.BEFORE);
        assertCode(Status.Code.UNAVAILABLE, () -> harness.csi().createVolume(create(volume, "alive")));
        await().pollDelay(GRACE.multipliedBy(2)).atMost(GRACE.multipliedBy(3))
                .until(() -> harness.state(volume).isPresent());
        assertThat(harness.state(volume).orElseThrow().getStatus().getPhase()).isEqualTo(VolumePhase.Creating);
        // and the provisioner's retry finishes it
        harness.csi().createVolume(create(volume, "alive"));
        assertThat(harness.state(volume).orElseThrow().getStatus().getPhase()).isEqualTo(VolumePhase.Exported);
    }

    @Test
    void aStateThatRecordsNoClaimIsReportedAndRemovedOnlyOnceAnOperatorDeletesIt() {
        String volume = "pvc-older-record";
        harness.agents.fail("ExportVolume", Fault.AFTER);
        assertCode(Status.Code.DEADLINE_EXCEEDED, () -> harness.csi().createVolume(Requests.create(volume, GIB)));
        Event reported = await().atMost(ControllerHarness.PATIENCE).until(() -> harness.events(volume).stream()
                .filter(e -> e.getReason().equals("AbandonedCreateUnknownClaim")).findFirst(), e -> e.isPresent()).orElseThrow();
        assertThat(reported.getType()).isEqualTo("Warning");
        assertThat(reported.getMessage()).contains("records no claim").contains("delete this PillarVolumeState by hand");
        assertThat(harness.state(volume).orElseThrow().getStatus().getPhase()).isEqualTo(VolumePhase.Exporting);
        assertThat(harness.fakeAgent().exports()).containsKey(volume);

        harness.client().resources(PillarVolumeState.class).withName(volume).delete();
        awaitRemoved(volume);
        assertThat(removedEvent(volume).getMessage()).contains("records no claim and was deleted by hand");
    }

    @Test
    void aCreateVolumeRetryDuringTheRemovalIsAbortedAndThenStartsAfresh() throws InterruptedException {
        String volume = volumeFor(claim("race"));
        harness.agents.fail("ExportVolume", Fault.AFTER);
        assertCode(Status.Code.DEADLINE_EXCEEDED, () -> harness.csi().createVolume(create(volume, "race")));
        String abandoned = harness.state(volume).orElseThrow().getMetadata().getUid();
        Hold removal = harness.agents.hold("DeleteVolume");
        harness.client().persistentVolumeClaims().inNamespace(NAMESPACE).withName("race").delete();
        assertThat(removal.arrived()).isTrue();

        assertCode(Status.Code.ABORTED, () -> harness.csi().createVolume(create(volume, "race")));
        removal.release();
        awaitRemoved(volume);

        // a late retry (the provisioner's last one) makes a new lifecycle, never resumes the ended one; it is
        // ABORTED until the removal has let go of the volume, as a CO's retry would be
        await().atMost(ControllerHarness.PATIENCE).ignoreExceptionsMatching(e -> e instanceof io.grpc.StatusRuntimeException s
                && s.getStatus().getCode() == Status.Code.ABORTED).until(() -> harness.csi().createVolume(create(volume, "race")) != null);
        PillarVolumeState fresh = harness.state(volume).orElseThrow();
        assertThat(fresh.getMetadata().getUid()).isNotEqualTo(abandoned);
        assertThat(fresh.getStatus().getPhase()).isEqualTo(VolumePhase.Exported);
        assertThat(harness.fakeAgent().mark(volume).orElseThrow().lifecycle().value()).isEqualTo(fresh.getMetadata().getUid());
    }

    @Test
    void aCreateInFlightWhenTheGracePeriodEndsCompletesAndIsKept() throws InterruptedException {
        String volume = volumeFor(claim("slow"));
        harness.agents.fail("CreateVolume", Fault.BEFORE);
        assertCode(Status.Code.UNAVAILABLE, () -> harness.csi().createVolume(create(volume, "slow")));
        Hold export = harness.agents.hold("ExportVolume");
        Thread retry = Thread.ofVirtual().start(() -> harness.csi().createVolume(create(volume, "slow")));
        assertThat(export.arrived()).isTrue();
        harness.client().persistentVolumeClaims().inNamespace(NAMESPACE).withName("slow").delete();
        Thread.sleep(GRACE.multipliedBy(2).toMillis()); // the removal is due now, but the retry holds the volume
        export.release();
        retry.join();
        assertThat(harness.state(volume).orElseThrow().getStatus().getPhase()).isEqualTo(VolumePhase.Exported);
        await().pollDelay(GRACE).atMost(GRACE.multipliedBy(2)).until(() -> harness.state(volume).isPresent());
        assertThat(harness.fakeAgent().volumes()).containsKey(volume);
    }

    /** The claim's deletion at the step the create stopped at, then its removal, not before the grace period. */
    private void abandonAndAwaitRemoval(String volume, String claim, VolumePhase stopped) {
        PillarVolumeState state = harness.state(volume).orElseThrow();
        assertThat(state.getStatus() == null ? VolumePhase.Pending : state.getStatus().getPhase()).isEqualTo(stopped);
        harness.client().persistentVolumeClaims().inNamespace(NAMESPACE).withName(claim).delete();
        awaitRemoved(volume);
        assertThat(Instant.now()).as("removed after the grace period").isAfterOrEqualTo(created(state).plus(GRACE));
        assertThat(harness.fakeAgent().volumes()).doesNotContainKey(volume);
        assertThat(harness.fakeAgent().exports()).doesNotContainKey(volume);
        Event removed = removedEvent(volume);
        assertThat(removed.getType()).isEqualTo("Normal");
        assertThat(removed.getMessage()).contains("never completed (" + stopped + ")")
                .contains("claim " + NAMESPACE + "/" + claim + " is gone").contains("agent " + CsiHarness.AGENT);
    }

    private void awaitRemoved(String volume) {
        await().atMost(ControllerHarness.PATIENCE.plus(GRACE)).until(() -> harness.state(volume).isEmpty());
    }

    private Event removedEvent(String volume) {
        return await().atMost(ControllerHarness.PATIENCE).until(() -> harness.events(volume).stream()
                .filter(e -> e.getReason().equals("AbandonedCreateRemoved")).findFirst(), e -> e.isPresent()).orElseThrow();
    }

    /** What a crash between the state's creation and its first step leaves: a state without status. */
    private void pendingState(String model, String volume, String claim) {
        PillarVolumeState pending = new PillarVolumeState();
        pending.setMetadata(new ObjectMetaBuilder().withName(volume).withFinalizers(PillarVolumeState.FINALIZER).build());
        pending.setSpec(harness.state(model).orElseThrow().getSpec());
        pending.getSpec().setVolumeName(volume);
        pending.getSpec().setClaim(NAMESPACE + "/" + claim);
        harness.client().resource(pending).create();
    }

    /** A claim being provisioned; its UID. */
    private String claim(String name) {
        PersistentVolumeClaim pvc = new PersistentVolumeClaimBuilder().withNewMetadata().withName(name).withNamespace(NAMESPACE)
                .endMetadata().withNewSpec().withStorageClassName("fast").endSpec().build();
        String uid = harness.client().persistentVolumeClaims().inNamespace(NAMESPACE).resource(pvc).create().getMetadata().getUid();
        assertThat(uid).isNotBlank();
        return uid;
    }

    /** The external-provisioner's name for the claim's volume. */
    private static String volumeFor(String uid) {
        return "pvc-" + uid;
    }

    private static pillar.api.csi.v1.CreateVolumeRequest create(String volume, String claim) {
        Map<String, String> parameters = Requests.parameters("csi.storage.k8s.io/pvc/name", claim,
                "csi.storage.k8s.io/pvc/namespace", NAMESPACE, "csi.storage.k8s.io/pv/name", volume);
        return Requests.create(volume, GIB, Requests.rwo(), parameters);
    }

    private static Instant created(PillarVolumeState state) {
        return OffsetDateTime.parse(state.getMetadata().getCreationTimestamp()).toInstant();
    }
}
