package pillar.api.value;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.function.Function;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Hostile and well-formed input against every identifier grammar. */
class ValueTypesTest {
    static final String[] HOSTILE = {
        "", "..", ".", "/", "a/b", "../etc", "a\0b", "a\nb", "a\tb", "a b", " a", "a ", "\u00e9t\u00e9", "vol\u202e",
        "a;rm -rf", "$(reboot)", "`id`", "a|b", "a*", "\u0007", "\u007f",
    };

    static Stream<Arguments> parsers() {
        return Stream.of(
                Arguments.of("volume_id", (Function<String, Object>) VolumeId::of),
                Arguments.of("name", (Function<String, Object>) VolumeName::of),
                Arguments.of("node_id", (Function<String, Object>) NodeId::of),
                Arguments.of("nqn", (Function<String, Object>) Nqn::of),
                Arguments.of("lifecycle_uid", (Function<String, Object>) LifecycleUid::of));
    }

    @ParameterizedTest(name = "{0} refuses hostile input")
    @MethodSource("parsers")
    void refusesHostileInput(String field, Function<String, Object> parser) {
        for (String bad : HOSTILE) {
            assertThatThrownBy(() -> parser.apply(bad))
                    .as("%s must refuse %s", field, bad.codePoints().mapToObj(Integer::toHexString).toList())
                    .isInstanceOf(InvalidValueException.class)
                    .satisfies(e -> assertThat(((InvalidValueException) e).field()).isEqualTo(field))
                    // the message never echoes control characters back
                    .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\0", "\n", "\u0007"));
        }
        assertThatThrownBy(() -> parser.apply(null)).isInstanceOf(InvalidValueException.class);
    }

    @Test
    void volumeIdIsAnRfc1123Label() {
        assertThat(VolumeId.of("pvc-0f9c2a6e-7c1b-4b8e-9a57-3e2d1c0b9a88").value()).startsWith("pvc-");
        assertThat(VolumeId.of("a").value()).isEqualTo("a");
        assertThat(VolumeId.of("x".repeat(63)).value()).hasSize(63);
        assertThatThrownBy(() -> VolumeId.of("x".repeat(64))).hasMessageContaining("1 to 63 bytes");
        assertThatThrownBy(() -> VolumeId.of("-a")).hasMessageContaining("start and end");
        assertThatThrownBy(() -> VolumeId.of("a-")).hasMessageContaining("start and end");
        assertThatThrownBy(() -> VolumeId.of("Pvc")).hasMessageContaining("'P'");
        assertThatThrownBy(() -> VolumeId.of("a.b")).hasMessageContaining("'.'");
    }

    @Test
    void volumeNameAllowsWhatProvisionersSend() {
        assertThat(VolumeName.of("pvc-0f9c2a6e-7c1b-4b8e-9a57-3e2d1c0b9a88").value()).isNotEmpty();
        assertThat(VolumeName.of("My_Volume.1").value()).isEqualTo("My_Volume.1");
        assertThatThrownBy(() -> VolumeName.of(".hidden")).hasMessageContaining("start with");
        assertThatThrownBy(() -> VolumeName.of("x".repeat(129))).hasMessageContaining("1 to 128");
    }

    @Test
    void nodeIdIsAnRfc1123Subdomain() {
        assertThat(NodeId.of("worker-1.rack2.example").value()).isEqualTo("worker-1.rack2.example");
        assertThatThrownBy(() -> NodeId.of("a..b")).hasMessageContaining("label");
        assertThatThrownBy(() -> NodeId.of("a.-b")).hasMessageContaining("label");
        assertThatThrownBy(() -> NodeId.of("x".repeat(64))).hasMessageContaining("label");
        assertThatThrownBy(() -> NodeId.of("Worker")).isInstanceOf(InvalidValueException.class);
    }

    @Test
    void nqnFollowsTheNvmeGrammar() {
        assertThat(Nqn.of("nqn.2014-08.org.nvmexpress:uuid:0f9c2a6e-7c1b-4b8e-9a57-3e2d1c0b9a88").value())
                .contains("uuid");
        assertThat(Nqn.of("nqn.2024-01.io.pillar-csi:pvc-1").value()).endsWith("pvc-1");
        assertThat(Nqn.of("nqn.2014-08.a").value()).hasSize(13);
        assertThatThrownBy(() -> Nqn.of("nqn.2014-08.")).hasMessageContaining("13 to 223");
        String longest = "nqn.2014-08.org.example:" + "x".repeat(223 - 24);
        assertThat(Nqn.of(longest).value()).hasSize(223);
        assertThatThrownBy(() -> Nqn.of(longest + "x")).hasMessageContaining("13 to 223");
        assertThatThrownBy(() -> Nqn.of("iqn.2014-08.org.example:x")).hasMessageContaining("nqn.yyyy-mm");
        assertThatThrownBy(() -> Nqn.of("nqn.2014-13.org.example:x")).hasMessageContaining("nqn.yyyy-mm");
        assertThatThrownBy(() -> Nqn.of("nqn.2014-08.org.example:a/b")).hasMessageContaining("'/'");
    }

    @Test
    void lifecycleUidIsACanonicalUuid() {
        LifecycleUid uid = LifecycleUid.random();
        assertThat(LifecycleUid.of(uid.value())).isEqualTo(uid);
        assertThatThrownBy(() -> LifecycleUid.of("0F9C2A6E-7C1B-4B8E-9A57-3E2D1C0B9A88"))
                .isInstanceOf(InvalidValueException.class);
        assertThatThrownBy(() -> LifecycleUid.of("0f9c2a6e7c1b-4b8e-9a57-3e2d1c0b9a88-"))
                .isInstanceOf(InvalidValueException.class);
    }

    @Test
    void byteSizesRoundUpAndRefuseNegatives() {
        assertThat(ByteSize.of(1).roundUpTo(8192)).isEqualTo(ByteSize.of(8192));
        assertThat(ByteSize.ofMiB(1).roundUpTo(4096)).isEqualTo(ByteSize.ofMiB(1));
        assertThat(ByteSize.of(0).roundUpTo(4096)).isEqualTo(ByteSize.of(0));
        assertThat(ByteSize.ofGiB(2).toString()).isEqualTo("2GiB");
        assertThat(ByteSize.of(1000).toString()).isEqualTo("1000B");
        assertThatThrownBy(() -> ByteSize.of(-1)).isInstanceOf(InvalidValueException.class);
        assertThatThrownBy(() -> ByteSize.of(Long.MAX_VALUE).roundUpTo(8192)).isInstanceOf(InvalidValueException.class);
        assertThatThrownBy(() -> ByteSize.ofGiB(Long.MAX_VALUE)).isInstanceOf(ArithmeticException.class);
    }
}
