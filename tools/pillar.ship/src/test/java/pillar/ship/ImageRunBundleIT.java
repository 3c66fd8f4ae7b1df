package pillar.ship;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Runs the images with a real OCI runtime (runc, as root, on root file systems unpacked by umoci,
 * each with the user its image names): the JVM and its module graph and AOT cache inside each
 * image, the tools each workload calls, and the agent's image started until its readiness answers
 * 200 and stopped by SIGTERM to its PID 1.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ImageRunBundleIT {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Duration DEADLINE = Duration.ofMinutes(2);
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1)).build();

    @TempDir
    static Path tmp;
    Path images;

    @AfterAll
    void remove() throws IOException {
        Bundle.removeTree(tmp);
    }

    @BeforeAll
    void unpack() throws IOException {
        images = Bundle.unpack(Bundle.tarball("-bundle.tar"), tmp).resolve("images");
    }

    @Test
    void agentImageRunsItsJvmAndTools() throws IOException {
        Path bundle = unpackImage("agent");
        assertJvm(bundle);
        assertThat(inside(bundle, "/usr/sbin/lvm", "version")).contains("LVM version:");
        assertThat(inside(bundle, "/usr/sbin/modprobe", "--version")).contains("kmod version");
        // zfs's user space answers without the kernel module (only its kernel version line fails here)
        assertThat(Bundle.exec(DEADLINE, runc(bundle, "/usr/sbin/zfs", "--version")).output()).contains("zfs-2.");
        // the kernel NFS server's user space (the chart's agent.nfs), and the mount its containers run
        assertThat(inside(bundle, "/usr/sbin/rpc.mountd", "--version")).contains("rpc.mountd version 2.");
        assertThat(inside(bundle, "/bin/mount", "--version")).contains("mount from util-linux");
    }

    @Test
    void nodeImageRunsItsJvmAndTools() throws IOException {
        Path bundle = unpackImage("node");
        assertJvm(bundle);
        assertThat(inside(bundle, "/usr/sbin/mkfs.xfs", "-V")).contains("mkfs.xfs version");
        assertThat(inside(bundle, "/usr/sbin/mke2fs", "-V")).contains("mke2fs 1.");
        assertThat(inside(bundle, "/usr/sbin/blkid", "-V")).contains("blkid from util-linux");
        assertThat(inside(bundle, "/usr/sbin/modprobe", "--version")).contains("kmod version");
    }

    @Test
    void controllerImageRunsItsJvmAsNonRoot() throws IOException {
        Path bundle = unpackImage("controller");
        assertJvm(bundle);
        assertThat(inside(bundle, "/opt/pillar/bin/java", "-XshowSettings:properties", "-version"))
                .contains("user.name = nonroot", "user.home = /home/nonroot");
    }

    @Test
    void agentImageBecomesReadyAndStopsOnSigterm() throws Exception {
        Path bundle = unpackImage("agent");
        Path run = tmp.resolve("agent-run");
        for (String d : List.of("hosts", "ports", "subsystems")) {
            Files.createDirectories(run.resolve("configfs/nvmet").resolve(d));
        }
        int health = freePort();
        Files.writeString(run.resolve("agent.yaml"), """
                agent:
                  listen: {host: 127.0.0.1, port: %d}
                  state-dir: /run/pillar-test/state
                  configfs-root: /run/pillar-test/configfs
                  backends:
                    - {name: test, type: lvm-thin, volume-group: test, thin-pool: pool0}
                health: {host: 127.0.0.1, port: %d}
                """.formatted(freePort(), health));
        ObjectNode config = (ObjectNode) JSON.readTree(bundle.resolve("config.json").toFile());
        ArrayNode args = (ArrayNode) config.path("process").path("args");
        args.add("--config").add("/run/pillar-test/agent.yaml");
        // the host's network (as the DaemonSet's hostNetwork), and the test's directory
        ArrayNode namespaces = (ArrayNode) config.path("linux").path("namespaces");
        for (int i = namespaces.size() - 1; i >= 0; i--) {
            if (namespaces.get(i).path("type").asString().equals("network")) {
                namespaces.remove(i);
            }
        }
        ((ArrayNode) config.path("mounts")).addObject().put("destination", "/run/pillar-test").put("type", "bind")
                .put("source", run.toString()).putArray("options").add("rbind").add("rw");
        ((ObjectNode) config.path("process")).put("terminal", false);
        JSON.writeValue(bundle.resolve("config.json").toFile(), config);

        String id = "pillar-agent-it-" + ProcessHandle.current().pid();
        Process p = new ProcessBuilder("runc", "run", "--bundle", bundle.toString(), id).redirectErrorStream(true)
                .redirectOutput(tmp.resolve("agent-container.log").toFile()).start();
        try {
            long t0 = System.nanoTime();
            int status = 0;
            while (status != 200 && p.isAlive() && System.nanoTime() - t0 < TimeUnit.SECONDS.toNanos(90)) {
                status = get(URI.create("http://127.0.0.1:" + health + "/observe/health/ready"));
                Thread.sleep(status == 200 ? 0 : 20);
            }
            assertThat(status).as("readiness in the container; its log:\n" + Files.readString(tmp.resolve("agent-container.log")))
                    .isEqualTo(200);
            System.out.printf("agent image under runc: launch to ready %d ms (unpacked rootfs, host network)%n",
                    TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0));
            JsonNode state = JSON.readTree(Bundle.run(Duration.ofSeconds(30), "runc", "state", id));
            long pid1 = state.path("pid").asLong();
            assertThat(Files.readString(Path.of("/proc/" + pid1 + "/comm")).strip()).as("the container's PID 1").isEqualTo("java");
            Bundle.run(Duration.ofSeconds(30), "runc", "kill", id, "TERM");
            assertThat(p.waitFor(30, TimeUnit.SECONDS)).as("the container stops on SIGTERM to its PID 1").isTrue();
        } finally {
            p.destroyForcibly();
            Bundle.exec(Duration.ofSeconds(30), List.of("runc", "delete", "--force", id));
        }
    }

    /** The image's JVM: its version, and its real entry point resolving the module graph with the AOT cache. */
    private void assertJvm(Path bundle) throws IOException {
        assertThat(inside(bundle, "/opt/pillar/bin/java", "-version")).contains("25.");
        JsonNode args = JSON.readTree(bundle.resolve("config.json").toFile()).path("process").path("args");
        List<String> dryRun = new ArrayList<>(List.of(args.get(0).asString(), "-XX:AOTMode=on", "--dry-run"));
        for (int i = 1; i < args.size(); i++) {
            dryRun.add(args.get(i).asString());
        }
        inside(bundle, dryRun.toArray(String[]::new));
    }

    private Path unpackImage(String workload) throws IOException {
        Path bundle = tmp.resolve("bundle-" + workload);
        if (Files.exists(bundle.resolve("config.json"))) {
            return bundle;
        }
        Path archive;
        try (var files = Files.list(images)) {
            archive = files.filter(f -> f.getFileName().toString().startsWith("pillar-" + workload + "-")).findFirst().orElseThrow();
        }
        Path layout = Files.createDirectories(tmp.resolve("layout-" + workload));
        Bundle.run(DEADLINE, "tar", "-C", layout.toString(), "-xf", archive.toString());
        String tag = JSON.readTree(layout.resolve("index.json").toFile()).path("manifests").get(0).path("annotations")
                .path("org.opencontainers.image.ref.name").asString();
        Bundle.run(DEADLINE, "umoci", "unpack", "--image", layout + ":" + tag, bundle.toString());
        return bundle;
    }

    /** Runs {@code command} in the image (as its user), output returned; fails unless it exits 0. */
    private String inside(Path bundle, String... command) throws IOException {
        Bundle.Result r = Bundle.exec(DEADLINE, runc(bundle, command));
        assertThat(r.exit()).as(String.join(" ", command) + " in the image:\n" + r.output()).isZero();
        return r.output();
    }

    private List<String> runc(Path bundle, String... command) throws IOException {
        ObjectNode config = (ObjectNode) JSON.readTree(bundle.resolve("config.json").toFile());
        Path copy = Files.createDirectories(tmp.resolve("run-" + System.nanoTime()));
        ObjectNode process = (ObjectNode) config.path("process");
        ArrayNode args = process.putArray("args");
        for (String c : command) {
            args.add(c);
        }
        process.put("terminal", false);
        ((ObjectNode) config.path("root")).put("path", bundle.resolve("rootfs").toString());
        JSON.writeValue(copy.resolve("config.json").toFile(), config);
        return List.of("runc", "run", "--bundle", copy.toString(), "pillar-it-" + System.nanoTime());
    }

    private static int get(URI uri) {
        try {
            return HTTP.send(HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(1)).build(),
                    HttpResponse.BodyHandlers.discarding()).statusCode();
        } catch (IOException e) {
            return 0;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return 0;
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }
}
