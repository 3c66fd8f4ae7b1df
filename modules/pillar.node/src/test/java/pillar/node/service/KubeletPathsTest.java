package pillar.node.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;

import io.grpc.Status;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import pillar.runtime.server.CsiException;

/** Staging and target paths: absolute, normalized, below the kubelet directory, no symlink escape. */
class KubeletPathsTest {
    private final KubeletPaths paths = new KubeletPaths(Path.of("/var/lib/kubelet"));

    @Test
    void kubeletsOwnPathsPass() {
        for (String ok : new String[] {
            "/var/lib/kubelet/plugins/kubernetes.io/csi/pillar.csi.io/0b1c2d/globalmount",
            "/var/lib/kubelet/pods/6d3e-11/volumes/kubernetes.io~csi/pvc-1a2b/mount",
            "/var/lib/kubelet/plugins/kubernetes.io/csi/volumeDevices/publish/pvc-1a2b/6d3e-11",
            "/var/lib/kubelet/plugins/kubernetes.io/csi/volumeDevices/staging/pvc-1a2b"}) {
            assertThat(paths.check("target_path", ok)).isEqualTo(Path.of(ok));
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "relative/path", "/var/lib/kubelet", "/var/lib/kubelet/", "/var/lib/kubelet/../x",
        "/var/lib/kubelet/a/../../etc", "/var/lib/kubelet/./a", "/var/lib/kubelet//a", "/var/lib/kubelet/a/",
        "/var/lib/kubeletx/a", "/etc/passwd", "/var/lib/kubelet/a b", "/var/lib/kubelet/a\nb",
        "/var/lib/kubelet/a\u0000b", "/var/lib/kubelet/a;rm", "/var/lib/kubelet/$(x)", "/var/lib/kubelet/ä"})
    void everythingElseIsInvalidArgument(String path) {
        assertThatThrownBy(() -> paths.check("target_path", path)).isInstanceOfSatisfying(CsiException.class,
                e -> {
                    assertThat(e.code()).isEqualTo(Status.Code.INVALID_ARGUMENT);
                    assertThat(e.getMessage()).startsWith("target_path").doesNotContain("\n", "\u0000");
                });
    }

    @Test
    void tooLongIsRefused() {
        assertThatThrownBy(() -> paths.check("target_path", "/var/lib/kubelet/" + "a".repeat(5000)))
                .hasMessageContaining("at most");
    }

    @Test
    void aSymlinkOutOfTheKubeletDirectoryIsRefused(@TempDir Path dir) throws Exception {
        Path kubelet = Files.createDirectories(dir.resolve("kubelet"));
        Path outside = Files.createDirectories(dir.resolve("etc"));
        Files.createDirectories(kubelet.resolve("pods"));
        Files.createSymbolicLink(kubelet.resolve("pods/evil"), outside);
        KubeletPaths local = new KubeletPaths(kubelet);
        Path escaping = local.check("target_path", kubelet.resolve("pods/evil/mount").toString());
        assertThatThrownBy(() -> local.checkNoEscape("target_path", escaping)).isInstanceOfSatisfying(CsiException.class,
                e -> assertThat(e.code()).isEqualTo(Status.Code.INVALID_ARGUMENT));
        local.checkNoEscape("target_path", kubelet.resolve("pods/fine"));
        assertThatThrownBy(() -> local.checkNoEscape("target_path", kubelet.resolve("missing/parent/x")))
                .isInstanceOfSatisfying(CsiException.class,
                        e -> assertThat(e.code()).isEqualTo(Status.Code.FAILED_PRECONDITION));
    }
}
