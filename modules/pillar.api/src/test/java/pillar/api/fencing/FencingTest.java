package pillar.api.fencing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Optional;
import java.util.Set;

import org.junit.jupiter.api.Test;
import pillar.api.fencing.Fencing.Admission;
import pillar.api.fencing.Fencing.Intent;
import pillar.api.fencing.FencingViolation.Reason;
import pillar.api.value.InvalidValueException;
import pillar.api.value.LifecycleUid;

/** Every accept and reject case of the fencing rules. */
class FencingTest {
    private final LifecycleUid a = LifecycleUid.of("0f9c2a6e-7c1b-4b8e-9a57-3e2d1c0b9a88");
    private final LifecycleUid b = LifecycleUid.of("1e8b3b7f-8d2c-4c9f-8b68-4f3e2d1c0baa");
    private final LifecycleUid c = LifecycleUid.of("2d7a4c80-9e3d-4da0-9c79-5a4f3e2d1cbb");

    private static Admission admit(FencingMark mark, FencingToken token, Intent intent) {
        return Fencing.admit(Optional.ofNullable(mark), Optional.ofNullable(token), intent);
    }

    private static void assertRejected(FencingMark mark, FencingToken token, Intent intent, Reason reason) {
        assertThatThrownBy(() -> admit(mark, token, intent))
                .isInstanceOf(FencingViolation.class)
                .satisfies(e -> assertThat(((FencingViolation) e).reason()).isEqualTo(reason));
    }

    @Test
    void aCallWithoutATokenIsRefusedWithOrWithoutAMark() {
        assertRejected(null, null, Intent.CHANGE, Reason.MISSING_TOKEN);
        assertRejected(FencingMark.active(FencingToken.of(a, 1)), null, Intent.CHANGE, Reason.MISSING_TOKEN);
        assertRejected(null, null, Intent.END, Reason.MISSING_TOKEN);
    }

    @Test
    void theFirstCallOfALifecycleTakesTheVolume() {
        Admission admission = admit(null, FencingToken.of(a, 0), Intent.CHANGE);
        assertThat(admission.alreadyDone()).isFalse();
        assertThat(admission.next()).isEqualTo(new FencingMark(a, 0, false, Set.of()));
    }

    @Test
    void theSameOrANewerGenerationIsAcceptedAndRaisesTheMark() {
        FencingMark mark = FencingMark.active(FencingToken.of(a, 3));
        assertThat(admit(mark, FencingToken.of(a, 3), Intent.CHANGE).next().generation()).isEqualTo(3);
        assertThat(admit(mark, FencingToken.of(a, 7), Intent.CHANGE).next().generation()).isEqualTo(7);
    }

    @Test
    void anOlderGenerationIsStale() {
        FencingMark mark = FencingMark.active(FencingToken.of(a, 3));
        assertRejected(mark, FencingToken.of(a, 2), Intent.CHANGE, Reason.STALE_GENERATION);
        assertRejected(mark, FencingToken.of(a, 0), Intent.END, Reason.STALE_GENERATION);
    }

    @Test
    void anotherLifecycleIsRefusedWhileTheOwnerIsActive() {
        FencingMark mark = FencingMark.active(FencingToken.of(a, 3));
        assertRejected(mark, FencingToken.of(b, 99), Intent.CHANGE, Reason.FOREIGN_LIFECYCLE);
        assertRejected(mark, FencingToken.of(b, 99), Intent.END, Reason.FOREIGN_LIFECYCLE);
    }

    @Test
    void deleteLeavesATombstoneThatRefusesEveryLaterChange() {
        FencingMark tombstone = admit(FencingMark.active(FencingToken.of(a, 3)), FencingToken.of(a, 4), Intent.END).next();
        assertThat(tombstone.ended()).isTrue();
        assertRejected(tombstone, FencingToken.of(a, 4), Intent.CHANGE, Reason.ENDED_LIFECYCLE);
        assertRejected(tombstone, FencingToken.of(a, 50), Intent.CHANGE, Reason.ENDED_LIFECYCLE);
    }

    @Test
    void aDeleteOfAVolumeNeverSeenLeavesATombstone() {
        FencingMark tombstone = admit(null, FencingToken.of(a, 0), Intent.END).next();
        assertThat(tombstone.ended()).isTrue();
        assertRejected(tombstone, FencingToken.of(a, 0), Intent.CHANGE, Reason.ENDED_LIFECYCLE);
    }

    @Test
    void aRepeatedDeleteIsAnIdempotentNoOp() {
        FencingMark tombstone = admit(FencingMark.active(FencingToken.of(a, 3)), FencingToken.of(a, 3), Intent.END).next();
        Admission again = admit(tombstone, FencingToken.of(a, 3), Intent.END);
        assertThat(again.alreadyDone()).isTrue();
        assertThat(again.next()).isEqualTo(tombstone);
        assertRejected(tombstone, FencingToken.of(a, 2), Intent.END, Reason.STALE_GENERATION);
    }

    @Test
    void aNewLifecycleReplacesAnEndedOneAndTheOldOneIsRetiredForGood() {
        FencingMark tombstone = admit(FencingMark.active(FencingToken.of(a, 3)), FencingToken.of(a, 3), Intent.END).next();
        FencingMark replaced = admit(tombstone, FencingToken.of(b, 0), Intent.CHANGE).next();
        assertThat(replaced).isEqualTo(new FencingMark(b, 0, false, Set.of(a)));
        assertRejected(replaced, FencingToken.of(a, 3), Intent.CHANGE, Reason.ENDED_LIFECYCLE);
        assertRejected(replaced, FencingToken.of(a, 9), Intent.END, Reason.ENDED_LIFECYCLE);
        // and a third lifecycle after b ends retires both
        FencingMark bEnded = admit(replaced, FencingToken.of(b, 1), Intent.END).next();
        FencingMark third = admit(bEnded, FencingToken.of(c, 0), Intent.CHANGE).next();
        assertThat(third.retired()).containsExactlyInAnyOrder(a, b);
        assertRejected(third, FencingToken.of(b, 5), Intent.CHANGE, Reason.ENDED_LIFECYCLE);
    }

    @Test
    void tokensAreValidatedAndBumped() {
        assertThat(FencingToken.of(a, 1).next()).isEqualTo(FencingToken.of(a, 2));
        assertThatThrownBy(() -> FencingToken.of(a, -1)).isInstanceOf(InvalidValueException.class);
        assertThatThrownBy(() -> FencingToken.of(null, 1)).isInstanceOf(InvalidValueException.class);
        assertThatThrownBy(() -> FencingToken.fromProto(pillar.api.agent.v1.FencingToken.newBuilder()
                .setLifecycleUid("../../etc").build())).isInstanceOf(InvalidValueException.class);
        assertThatThrownBy(() -> FencingToken.fromProto(pillar.api.agent.v1.FencingToken.newBuilder()
                .setLifecycleUid(a.value()).setPublicationGeneration(-5).build()))
                .isInstanceOf(InvalidValueException.class);
        FencingToken token = FencingToken.of(b, 42);
        assertThat(FencingToken.fromProto(token.toProto())).isEqualTo(token);
    }
}
