package pillar.bench.proc;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Image sizes read from the release bundle as dev/bundle writes it (a real tar, listed by the real tar). */
class BundleListingTest {
    @TempDir
    Path dir;

    @Test
    void findsEachImageInTheBundleByWorkloadAndNothingForAMissingOne() throws Exception {
        Path release = Files.createDirectories(dir.resolve("pillar-csi-1.2.3/images"));
        Files.write(release.resolve("pillar-agent-1.2.3.oci.tar"), new byte[1234]);
        Files.write(release.resolve("pillar-node-1.2.3.oci.tar"), new byte[56]);
        Files.writeString(dir.resolve("pillar-csi-1.2.3/INSTALL.md"), "pillar-controller-1.2.3.oci.tar is not here");
        Path out = Files.createDirectories(dir.resolve("out"));
        run("tar", "-C", dir.toString(), "-cf", out.resolve("pillar-csi-1.2.3-bundle.tar").toString(), "pillar-csi-1.2.3");

        Layout layout = new Layout(dir);
        assertThat(layout.imageBytes(out, "agent")).hasValue(1234);
        assertThat(layout.imageBytes(out, "node")).hasValue(56);
        assertThat(layout.imageBytes(out, "controller")).isEmpty();
        assertThat(layout.imageBytes(dir.resolve("absent"), "agent")).isEmpty();
    }

    @Test
    void aLooseImageArchiveComesFirst() throws IOException {
        Files.write(dir.resolve("pillar-agent-1.2.3.oci.tar"), new byte[99]);
        assertThat(new Layout(dir).imageBytes(dir, "agent")).hasValue(99);
    }

    private static void run(String... argv) throws Exception {
        Process p = new ProcessBuilder(List.of(argv)).inheritIO().start();
        assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).isZero();
    }
}
