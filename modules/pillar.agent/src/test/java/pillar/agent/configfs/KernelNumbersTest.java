package pillar.agent.configfs;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.OptionalLong;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** Directory names as the kernel's kstrtou16/kstrtou32 (base 0) read them (measured in the VM: ports/0x10, +9, 007). */
class KernelNumbersTest {

    @ParameterizedTest
    @CsvSource({"1, 1", "60021, 60021", "0x10, 16", "0XfF, 255", "010, 8", "007, 7", "0, 0", "+9, 9", "65535, 65535"})
    void numbers(String text, long value) {
        assertThat(KernelNumbers.isNumber(text)).isTrue();
        assertThat(KernelNumbers.parse(text, 65_535)).isEqualTo(OptionalLong.of(value));
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "abc", "-1", " 5", "5 ", "0x", "08", "1.5", "++1", "1\n\n", "\u0661"})
    void notNumbers(String text) {
        assertThat(KernelNumbers.isNumber(text)).isFalse();
        assertThat(KernelNumbers.parse(text, Long.MAX_VALUE)).isEmpty();
    }

    @ParameterizedTest
    @ValueSource(strings = {"70000", "65536", "0x10000", "99999999999999999999999"})
    void tooLargeForSixteenBits(String text) {
        assertThat(KernelNumbers.isNumber(text)).isTrue();
        assertThat(KernelNumbers.parse(text, 65_535)).isEmpty();
    }

    @ParameterizedTest
    @ValueSource(strings = {"1\n"})
    void oneTrailingNewlineIsAllowed(String text) {
        assertThat(KernelNumbers.parse(text, 10)).isEqualTo(OptionalLong.of(1));
    }
}
