package pillar.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class TableTest {
    @Test
    void rendersPaddedMarkdown() {
        String text = new Table("call", "p50 ms").row("CreateVolume", 1.5).row("a|b", "12").markdown();
        assertThat(text).isEqualTo("""
                | call         | p50 ms |
                |--------------|--------|
                | CreateVolume | 1.5    |
                | a\\|b         | 12     |
                """);
    }

    @Test
    void refusesARowOfTheWrongWidth() {
        assertThatThrownBy(() -> new Table("a", "b").row("only one")).isInstanceOf(IllegalArgumentException.class);
    }
}
