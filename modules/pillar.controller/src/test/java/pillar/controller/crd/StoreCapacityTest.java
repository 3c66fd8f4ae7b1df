package pillar.controller.crd;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class StoreCapacityTest {
    @Test
    void bytesAreShownInTheLargestBinaryUnitWithThreeDigits() {
        assertThat(StoreCapacity.display(0)).isEqualTo("0B");
        assertThat(StoreCapacity.display(1023)).isEqualTo("1023B");
        assertThat(StoreCapacity.display(1024)).isEqualTo("1Ki");
        assertThat(StoreCapacity.display(100L << 30)).isEqualTo("100Gi");
        assertThat(StoreCapacity.display((long) (1.5 * (1L << 40)))).isEqualTo("1.5Ti");
        assertThat(StoreCapacity.display(999_999_999_999L)).isEqualTo("931Gi");
        assertThat(StoreCapacity.display(Long.MAX_VALUE)).isEqualTo("8Ei");
    }
}
