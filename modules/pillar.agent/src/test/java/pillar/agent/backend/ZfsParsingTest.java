package pillar.agent.backend;

import static org.assertj.core.api.Assertions.assertThat;
import static pillar.agent.backend.BackendAssertions.assertFails;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import pillar.agent.backend.BackendException.Kind;
import pillar.api.exec.Command;
import pillar.api.exec.CommandFailedException;

/**
 * The zfs output parser on output in zfs(8)'s scripted format (see {@code zfs/README.md}), libzfs's
 * error texts, and the option allow-list.
 */
class ZfsParsingTest {
    @Test
    void propertiesOfAManagedZvol() {
        assertThat(ZfsOutput.properties(Captures.read("zfs/get-zvol.out"), "tank/k8s/pvc-1")).containsExactly(
                Map.entry("volsize", "1073741824"), Map.entry("volblocksize", "16384"), Map.entry("io.pillar-csi:managed", "true"));
    }

    @Test
    void anUnsetUserPropertyAndAPropertyThatDoesNotApplyPrintADash() {
        assertThat(ZfsOutput.properties(Captures.read("zfs/get-unmanaged.out"), "tank/k8s/legacy")).containsEntry("io.pillar-csi:managed", "-");
        Map<String, String> filesystem = ZfsOutput.properties(Captures.read("zfs/get-filesystem.out"), "tank/k8s/home");
        assertThat(ZfsOutput.bytes(filesystem.get("volsize"))).isEmpty();
    }

    @Test
    void listRowsAndSpace() {
        assertThat(ZfsOutput.rows(Captures.read("zfs/list-volumes.out"), 3)).containsExactly(
                List.of("tank/k8s/legacy", "536870912", "-"), List.of("tank/k8s/pvc-1", "1073741824", "true"),
                List.of("tank/k8s/pvc-2", "2147483648", "true"));
        assertThat(ZfsOutput.rows(Captures.read("zfs/get-space.out"), 2)).containsExactly(
                List.of("available", "9663676416"), List.of("used", "555745280"));
        assertThat(ZfsOutput.rows("", 3)).isEmpty();
    }

    @Test
    void numbers() {
        assertThat(ZfsOutput.bytes("0")).isEqualTo(OptionalLong.of(0));
        assertThat(ZfsOutput.bytes("9223372036854775807")).isEqualTo(OptionalLong.of(Long.MAX_VALUE));
        assertThat(ZfsOutput.bytes("-")).isEmpty();
        assertFails(() -> ZfsOutput.bytes("1G"), Kind.FAILED, "run with -p?");
        assertFails(() -> ZfsOutput.bytes("-5"), Kind.FAILED, "number of bytes");
        assertFails(() -> ZfsOutput.bytes("99999999999999999999"), Kind.FAILED, "number of bytes");
    }

    @Test
    void outputOfAnotherShapeIsAFailureNotAGuess() {
        assertFails(() -> ZfsOutput.rows("tank/k8s/pvc-1  volsize  1073741824\n", 3), Kind.FAILED, "1 columns where 3 belong");
        assertFails(() -> ZfsOutput.rows("a\tb\tc\td\n", 3), Kind.FAILED, "4 columns");
        assertFails(() -> ZfsOutput.properties("tank/other\tvolsize\t1\n", "tank/k8s/pvc-1"), Kind.FAILED, "printed a row of tank/other");
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(delimiter = '|', value = {
            "cannot open 'tank/k8s/pvc-1': dataset does not exist | NOT_FOUND",
            "cannot create 'tank/k8s/pvc-1': parent does not exist | NO_PARENT",
            "cannot create 'tank/k8s/pvc-1': no such pool 'tank' | NO_PARENT",
            "cannot create 'tank/k8s/pvc-1': no such parent 'tank/k8s' | NO_PARENT",
            "cannot create 'tank/k8s/pvc-1': dataset already exists | EXISTS",
            "cannot create 'tank/k8s/pvc-1': out of space | NO_SPACE",
            "cannot set property for 'tank/k8s/pvc-1': out of space | NO_SPACE",
            "cannot set property for 'tank/k8s/pvc-1': size is greater than available space | NO_SPACE",
            "cannot destroy 'tank/k8s/pvc-1': dataset is busy | BUSY",
            "cannot destroy 'tank/k8s/pvc-1': volume has children | OTHER",
            "cannot create 'tank/k8s/pvc-1': volume size must be a multiple of volume block size | OTHER",
            "internal error: out of memory | OTHER",
    })
    void libzfsMessages(String stderr, ZfsFailure expected) {
        Command command = Command.of(Duration.ofSeconds(1), "zfs", "get");
        assertThat(ZfsFailure.of(new CommandFailedException(command, 1, stderr + "\n", false))).isEqualTo(expected);
        // the same text with another status (usage error, timeout) is no proof
        assertThat(ZfsFailure.of(new CommandFailedException(command, 2, stderr, false))).isEqualTo(ZfsFailure.OTHER);
        assertThat(ZfsFailure.of(new CommandFailedException(command, -1, stderr, true))).isEqualTo(ZfsFailure.OTHER);
    }

    @Test
    void optionsDefaultsAndAllowedValues() {
        assertThat(ZfsOptions.parse(Map.of())).isEqualTo(new ZfsOptions(false, 16384, Optional.empty()));
        assertThat(ZfsOptions.parse(Map.of("sparse", "true", "volblocksize", "4K", "compression", "lz4")))
                .isEqualTo(new ZfsOptions(true, 4096, Optional.of("lz4")));
        assertThat(ZfsOptions.parse(Map.of("volblocksize", "131072")).volblocksize()).isEqualTo(131072);
        assertThat(ZfsOptions.parse(Map.of("volblocksize", "32k")).volblocksize()).isEqualTo(32768);
        for (String compression : ZfsOptions.COMPRESSION) {
            assertThat(ZfsOptions.parse(Map.of("compression", compression)).compression()).contains(compression);
        }
    }

    @Test
    void refusedOptionsNameTheAllowList() {
        assertFails(() -> ZfsOptions.parse(Map.of("mountpoint", "/", "dedup", "on")), Kind.INVALID,
                "accept the volume options [compression, sparse, volblocksize]; refused ['dedup', 'mountpoint']");
        assertFails(() -> ZfsOptions.parse(Map.of("compression", "lz4\u0000")), Kind.INVALID, "'lz4\\x00'");
        assertFails(() -> ZfsOptions.parse(Map.of("volblocksize", "2K")), Kind.INVALID, "power of two from 4K to 128K");
    }
}
