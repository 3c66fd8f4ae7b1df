package pillar.sandbox;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

/**
 * A command the user runs inside the VM once the sandbox is up ({@code dev/sandbox -- CMD ARGS} or
 * {@code dev/sandbox exec}), e.g. a CSI conformance tool pointed at the driver. It gets the
 * sandbox's environment ({@link #environment}) and a deadline; its output goes where the caller says.
 */
final class UserCommand {
    static final Duration DEADLINE = Duration.ofHours(2);

    private UserCommand() {
    }

    /**
     * {@code PILLAR_CONTROLLER_SOCKET}, {@code PILLAR_NODE_SOCKET}, {@code PILLAR_KUBELET_DIR}, and
     * {@code PILLAR_SC_PARAMETERS}: a YAML file of the generated StorageClass's parameters as
     * external-provisioner passes them to CreateVolume (its {@code csi.storage.k8s.io/} keys removed),
     * and {@code PILLAR_METRICS_URLS}: the controller's, agent's and node's {@code /metrics}, space-separated.
     */
    static Map<String, String> environment(BedLayout layout, Map<String, String> storageClassParameters) throws IOException {
        Path file = layout.work().resolve("storageclass-parameters.yaml");
        StringBuilder yaml = new StringBuilder("# the generated StorageClass's parameters, as CreateVolume receives them\n");
        new TreeMap<>(storageClassParameters).forEach((k, v) -> {
            if (!k.startsWith("csi.storage.k8s.io/")) {
                yaml.append('"').append(k).append("\": \"").append(v.replace("\\", "\\\\").replace("\"", "\\\"")).append("\"\n");
            }
        });
        Files.createDirectories(file.getParent());
        Files.writeString(file, yaml);
        Map<String, String> env = new LinkedHashMap<>();
        env.put("PILLAR_CONTROLLER_SOCKET", layout.controllerSocket().toString());
        env.put("PILLAR_NODE_SOCKET", layout.nodeSocket().toString());
        env.put("PILLAR_SC_PARAMETERS", file.toString());
        env.put("PILLAR_KUBELET_DIR", layout.kubeletDir().toString());
        env.put("PILLAR_METRICS_URLS", MetricsExcerpt.urls(layout.ports().healthPorts()));
        return env;
    }

    /**
     * Runs {@code argv} in {@code dir} with {@code env} added; output to {@code output} (inherited
     * when null). Returns its exit status; 124 when it ran past the deadline and was killed.
     */
    static int run(List<String> argv, Path dir, Map<String, String> env, File output) throws IOException, InterruptedException {
        ProcessBuilder builder = new ProcessBuilder(argv).directory(dir.toFile()).redirectErrorStream(true)
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
        builder.environment().putAll(env);
        if (output == null) {
            builder.redirectOutput(ProcessBuilder.Redirect.INHERIT);
        } else {
            builder.redirectOutput(output);
        }
        Process process;
        try {
            process = builder.start();
        } catch (IOException e) {
            throw new IOException("cannot run " + argv + ": " + e.getMessage(), e);
        }
        if (!process.waitFor(DEADLINE.toMillis(), TimeUnit.MILLISECONDS)) {
            process.descendants().forEach(ProcessHandle::destroyForcibly);
            process.destroyForcibly().waitFor();
            return 124;
        }
        return process.exitValue();
    }
}
