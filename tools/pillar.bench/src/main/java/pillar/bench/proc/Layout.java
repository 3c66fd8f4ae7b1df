package pillar.bench.proc;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.stream.Stream;

/**
 * Where a built checkout keeps what the benchmarks start: each workload's jar and module path
 * ({@code modules/M/target}), its test-jar (the fakes), the bench's own classes, the sandbox's
 * emulated API, the chart's CRDs, and, when dev/bundle has made them, the jlink runtimes and images.
 */
public record Layout(Path root) {
    public Layout {
        root = root.toAbsolutePath().normalize();
    }

    /** {@code modules/pillar.WORKLOAD}. */
    public Path module(String workload) {
        return root.resolve("modules/pillar." + workload);
    }

    /** The workload's module path as the build leaves it: its dependencies and its own jar. */
    public String modulePath(String workload) {
        return module(workload).resolve("target/modules") + ":" + jar(module(workload).resolve("target"), "pillar." + workload, false);
    }

    /** The workload's test jar: in target/test-jar where its pom puts it (the agent's), else in target. */
    public Path testJar(String workload) {
        Path target = module(workload).resolve("target");
        Path separate = target.resolve("test-jar");
        return jar(Files.isDirectory(separate) ? separate : target, "pillar." + workload, true);
    }

    /** The bench tool's own jar (the fake-backed workloads' mains). */
    public Path benchJar() {
        return jar(root.resolve("tools/pillar.bench/target"), "pillar.bench", false);
    }

    /** The class path of the sandbox driver (its emulated Kubernetes API). */
    public String sandboxClasspath() {
        Path target = root.resolve("tools/pillar.sandbox/target");
        return target.resolve("modules") + "/*:" + jar(target, "pillar.sandbox", false);
    }

    public Path crds() {
        return root.resolve("helm/pillar-csi/crds");
    }

    /** The workload's jlink runtime, when built ({@code jlink/target/pillar-WORKLOAD}, by jlink/build). */
    public Optional<Path> runtime(String workload) {
        Path home = root.resolve("jlink/target/pillar-" + workload);
        return Files.isExecutable(home.resolve("bin/pillar-" + workload)) ? Optional.of(home) : Optional.empty();
    }

    /**
     * The size in bytes of the workload's OCI image archive, when dev/bundle built it: a loose
     * {@code pillar-WORKLOAD-VERSION.oci.tar} in {@code dir}, else the entry {@code images/pillar-WORKLOAD-*.oci.tar}
     * of the release bundle {@code pillar-csi-*-bundle.tar} there (read from {@code tar -tvf}'s listing).
     */
    public OptionalLong imageBytes(Path dir, String workload) {
        if (!Files.isDirectory(dir)) {
            return OptionalLong.empty();
        }
        String image = "pillar-" + workload + "-[^/]*\\.oci\\.tar";
        try (Stream<Path> files = Files.list(dir)) {
            List<Path> found = files.sorted().toList();
            for (Path f : found) {
                if (f.getFileName().toString().matches(image)) {
                    return OptionalLong.of(Files.size(f));
                }
            }
            for (Path f : found) {
                if (f.getFileName().toString().matches("pillar-csi-.*-bundle\\.tar")) {
                    return BundleListing.entryBytes(f, "[^/]+/images/" + image);
                }
            }
            return OptionalLong.empty();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static Path jar(Path target, String artifact, boolean tests) {
        try (Stream<Path> files = Files.list(target)) {
            List<Path> jars = files.filter(f -> {
                String name = f.getFileName().toString();
                return name.startsWith(artifact + "-") && name.endsWith(tests ? "-tests.jar" : ".jar") && !name.endsWith("-sources.jar")
                        && (tests || !name.endsWith("-tests.jar"));
            }).toList();
            if (jars.size() != 1) {
                throw new IllegalStateException("expected one " + artifact + (tests ? " test-jar" : " jar") + " in " + target
                        + ", found " + jars + ": build first (dev/bench does)");
            }
            return jars.getFirst();
        } catch (IOException e) {
            throw new IllegalStateException("no build output in " + target + ": build first (dev/bench does)", e);
        }
    }
}
