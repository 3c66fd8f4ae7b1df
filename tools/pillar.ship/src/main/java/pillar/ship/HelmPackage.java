package pillar.ship;

import java.nio.file.Files;
import java.nio.file.Path;

import com.marcnuri.helm.Helm;

/**
 * {@code helm package} for dev/bundle, with Helm's own Go library (helm-java) rather than a
 * downloaded helm binary: the chart in the bundle is packaged by the same code {@code helm} runs.
 *
 * <p>Usage: {@code HelmPackage CHART_DIR DESTINATION_DIR}; prints the path of the package written.
 */
public final class HelmPackage {
    private HelmPackage() {
    }

    public static void main(String[] args) {
        if (args.length != 2) {
            System.err.println("usage: HelmPackage CHART_DIR DESTINATION_DIR");
            System.exit(2);
        }
        System.out.println(packageChart(Path.of(args[0]), Path.of(args[1])));
    }

    /** Packages {@code chart} into {@code destination}; returns the package (NAME-VERSION.tgz). */
    public static Path packageChart(Path chart, Path destination) {
        if (!Files.isRegularFile(chart.resolve("Chart.yaml"))) {
            throw new IllegalArgumentException("not a Helm chart (no Chart.yaml): " + chart);
        }
        try {
            Files.createDirectories(destination);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        new Helm(chart).packageIt().withDestination(destination).call();
        try (var files = Files.list(destination)) {
            return files.filter(p -> p.getFileName().toString().endsWith(".tgz"))
                    .max(java.util.Comparator.comparing(p -> p.toFile().lastModified()))
                    .orElseThrow(() -> new IllegalStateException("helm package wrote no .tgz into " + destination));
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
