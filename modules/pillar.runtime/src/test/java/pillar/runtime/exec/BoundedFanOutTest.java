package pillar.runtime.exec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;

import org.junit.jupiter.api.Test;

class BoundedFanOutTest {
    @Test
    void resultsComeInTheItemsOrderAndNoMoreThanAtOnceRun() throws Exception {
        AtomicInteger running = new AtomicInteger();
        AtomicInteger most = new AtomicInteger();
        List<Integer> items = IntStream.range(0, 40).boxed().toList();

        List<Integer> results = BoundedFanOut.map(items, 3, "squaring", i -> {
            most.accumulateAndGet(running.incrementAndGet(), Math::max);
            try {
                Thread.sleep(5);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            running.decrementAndGet();
            return i * i;
        });

        assertThat(results).isEqualTo(items.stream().map(i -> i * i).toList());
        assertThat(most.get()).isBetween(1, 3);
    }

    @Test
    void aFailedTaskIsNamedWithItsCause() {
        assertThatThrownBy(() -> BoundedFanOut.run(List.of(() -> { }, () -> {
            throw new ArithmeticException("boom");
        }), 2, "counting")).isInstanceOf(IllegalStateException.class).hasMessage("counting failed")
                .hasCauseInstanceOf(ArithmeticException.class);
    }
}
