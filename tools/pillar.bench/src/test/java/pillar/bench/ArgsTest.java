package pillar.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class ArgsTest {
    @Test
    void readsKeyValuesAndFlags() {
        Args args = Args.parse("--port=9500", "--quick", "--jvm-flags=-Xmx64m -XX:+UseSerialGC", "--empty=");
        assertThat(args.integer("port")).isEqualTo(9500);
        assertThat(args.flag("quick")).isTrue();
        assertThat(args.flag("tune")).isFalse();
        assertThat(args.get("jvm-flags")).isEqualTo("-Xmx64m -XX:+UseSerialGC");
        assertThat(args.get("empty")).isEmpty();
        assertThat(args.get("missing", "fallback")).isEqualTo("fallback");
        assertThat(args.number("volume-bytes", 42)).isEqualTo(42);
    }

    @Test
    void refusesWhatIsNotAnOptionAndNamesAMissingOne() {
        assertThatThrownBy(() -> Args.parse("port=1")).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("port=1");
        assertThatThrownBy(() -> Args.parse("--")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Args.parse().get("out")).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("--out");
    }
}
