package pillar.ship;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveInputStream;
import java.util.zip.GZIPInputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class HelmPackageTest {
    @TempDir
    Path dir;

    @Test
    void packagesAChartWithHelm() throws IOException {
        Path chart = dir.resolve("demo");
        Files.createDirectories(chart.resolve("templates"));
        Files.writeString(chart.resolve("Chart.yaml"), "apiVersion: v2\nname: demo\nversion: 1.2.3\n");
        Files.writeString(chart.resolve("templates/cm.yaml"),
                "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: demo}\n");

        Path tgz = HelmPackage.packageChart(chart, dir.resolve("out"));

        assertThat(tgz.getFileName().toString()).isEqualTo("demo-1.2.3.tgz");
        assertThat(entries(tgz)).contains("demo/Chart.yaml", "demo/templates/cm.yaml");
    }

    @Test
    void refusesADirectoryWithoutChartYaml() {
        assertThatThrownBy(() -> HelmPackage.packageChart(dir, dir.resolve("out")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("no Chart.yaml");
    }

    @Test
    void helmRefusesAnInvalidChart() throws IOException {
        Path chart = dir.resolve("bad");
        Files.createDirectories(chart);
        Files.writeString(chart.resolve("Chart.yaml"), "apiVersion: v2\nname: bad\n"); // no version
        assertThatThrownBy(() -> HelmPackage.packageChart(chart, dir.resolve("out")))
                .hasMessageContaining("version");
    }

    private static java.util.List<String> entries(Path tgz) throws IOException {
        var names = new java.util.ArrayList<String>();
        try (var in = new TarArchiveInputStream(new GZIPInputStream(Files.newInputStream(tgz)))) {
            for (TarArchiveEntry e = in.getNextEntry(); e != null; e = in.getNextEntry()) {
                names.add(e.getName());
            }
        }
        return names;
    }
}
