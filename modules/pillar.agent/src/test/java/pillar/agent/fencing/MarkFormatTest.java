package pillar.agent.fencing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Set;

import org.junit.jupiter.api.Test;
import pillar.api.fencing.FencingMark;
import pillar.api.fencing.FencingToken;
import pillar.api.value.LifecycleUid;

/** The fencing marks' on-disk text form: it round-trips, and a damaged file is refused. */
class MarkFormatTest {
    private final LifecycleUid a = LifecycleUid.of("0f9c2a6e-7c1b-4b8e-9a57-3e2d1c0b9a88");
    private final LifecycleUid b = LifecycleUid.of("1e8b3b7f-8d2c-4c9f-8b68-4f3e2d1c0baa");
    private final LifecycleUid c = LifecycleUid.of("2d7a4c80-9e3d-4da0-9c79-5a4f3e2d1cbb");

    @Test
    void marksRoundTripThroughTheirTextFormAndRefuseDamage() {
        FencingMark mark = new FencingMark(c, 12, true, Set.of(a, b));
        assertThat(MarkFormat.parse(MarkFormat.encode(mark))).isEqualTo(mark);
        FencingMark fresh = FencingMark.active(FencingToken.of(a, 0));
        assertThat(MarkFormat.parse(MarkFormat.encode(fresh))).isEqualTo(fresh);
        String text = MarkFormat.encode(mark);
        assertThatThrownBy(() -> MarkFormat.parse(text.replace("generation=12", "generation=x")))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> MarkFormat.parse(text.replace("ended=true", "ended=yes")))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> MarkFormat.parse(text.substring(0, text.length() / 2)))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> MarkFormat.parse(text + "generation=13\n"))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> MarkFormat.parse(text.replace("version=1", "version=2")))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> MarkFormat.parse("")).isInstanceOf(IllegalArgumentException.class);
    }
}
