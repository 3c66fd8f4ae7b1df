package pillar.bench.stats;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.stream.IntStream;

import org.junit.jupiter.api.Test;

class SamplesTest {
    @Test
    void percentilesAreNearestRankOnTheSortedValues() {
        Samples samples = new Samples();
        // 1..100 in reverse order: the percentile is the value of that rank
        IntStream.rangeClosed(1, 100).map(i -> 101 - i).forEach(samples::add);
        Summary s = samples.summary();
        assertThat(s.count()).isEqualTo(100);
        assertThat(s.p50()).isEqualTo(50);
        assertThat(s.p99()).isEqualTo(99);
        assertThat(s.max()).isEqualTo(100);
        assertThat(s.mean()).isEqualTo(50); // 5050 / 100, truncated
    }

    @Test
    void fewValuesGiveTheHighestForHighPercentiles() {
        long[] sorted = {10, 20, 30};
        assertThat(Samples.percentile(sorted, 50)).isEqualTo(20);
        assertThat(Samples.percentile(sorted, 99)).isEqualTo(30);
        assertThat(Samples.percentile(sorted, 100)).isEqualTo(30);
        assertThat(Samples.percentile(sorted, 1)).isEqualTo(10);
        assertThat(Samples.percentile(new long[] {7}, 99)).isEqualTo(7);
    }

    @Test
    void growsBeyondItsFirstArrayAndMerges() {
        Samples a = new Samples();
        Samples b = new Samples();
        IntStream.range(0, 1000).forEach(a::add);
        IntStream.range(1000, 2000).forEach(b::add);
        a.addAll(b);
        assertThat(a.count()).isEqualTo(2000);
        assertThat(a.summary().p99()).isEqualTo(1979);
        assertThat(a.summary().max()).isEqualTo(1999);
    }

    @Test
    void refusesWhatIsNotADurationOrAPercentile() {
        assertThatThrownBy(() -> new Samples().add(-1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Samples.percentile(new long[0], 50)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Samples.percentile(new long[] {1}, 0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Samples.percentile(new long[] {1}, 101)).isInstanceOf(IllegalArgumentException.class);
        assertThat(new Samples().summary().count()).isZero();
    }

    @Test
    void millisecondsAreShortAndRounded() {
        assertThat(Summary.millis(412_345)).isEqualTo("0.4");
        assertThat(Summary.millis(12_750_000)).isEqualTo("12.8");
        assertThat(Summary.millis(230_400_000)).isEqualTo("230");
    }
}
