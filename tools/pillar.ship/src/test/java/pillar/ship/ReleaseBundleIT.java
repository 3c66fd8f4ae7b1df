package pillar.ship;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;

/**
 * The air-gapped release bundle as dev/bundle wrote it: unpacked, checksums verified, and each OCI
 * image's structure read from its archive (entry point, user, labels, layers, files and tools).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ReleaseBundleIT {
    private static final long MIB = 1 << 20;

    @TempDir
    static Path tmp;
    Path release;
    String chartAppVersion;
    final Map<String, OciArchive> images = new HashMap<>();

    @AfterAll
    void remove() throws IOException {
        Bundle.removeTree(tmp);
    }

    @BeforeAll
    void unpack() throws IOException {
        assertThat(Bundle.verifyChecksums(Bundle.dir())).as("the tarballs in the outer SHA256SUMS").isEqualTo(2);
        release = Bundle.unpack(Bundle.tarball("-bundle.tar"), tmp);
        Path chartFiles = Files.createDirectories(tmp.resolve("chart"));
        try (var charts = Files.list(release.resolve("chart"))) {
            Bundle.run(java.time.Duration.ofMinutes(1), "tar", "-C", chartFiles.toString(), "-xzf",
                    charts.findFirst().orElseThrow().toString());
        }
        chartAppVersion = String.valueOf(new org.yaml.snakeyaml.Yaml()
                .<Map<String, Object>>load(Files.readString(chartFiles.resolve("pillar-csi/Chart.yaml"))).get("appVersion"));
        for (String w : List.of("agent", "node", "controller")) {
            images.put(w, OciArchive.read(image(w)));
        }
    }

    @Test
    void everyFileIsInTheChecksumsAndMatches() throws IOException {
        int files = Bundle.verifyChecksums(release);
        System.out.printf("release bundle %s: %d files verified against SHA256SUMS%n", release.getFileName(), files);
        assertThat(files).isGreaterThanOrEqualTo(3 + 1 + 4 + 2);
    }

    @Test
    void holdsTheChartTheCrdsTheSidecarListAndTheInstallSteps() throws IOException {
        try (var charts = Files.list(release.resolve("chart"))) {
            assertThat(charts.map(p -> p.getFileName().toString())).singleElement().asString().matches("pillar-csi-.+\\.tgz");
        }
        try (var crds = Files.list(release.resolve("crds"))) {
            assertThat(crds.map(p -> p.getFileName().toString()))
                    .contains("pillaragents.pillar.csi.io-v1.yml", "pillarstores.pillar.csi.io-v1.yml");
        }
        List<String> sidecars = Files.readAllLines(release.resolve("sidecar-images.txt")).stream()
                .filter(l -> !l.isBlank() && !l.startsWith("#")).toList();
        assertThat(sidecars).hasSize(6).allMatch(l -> l.matches("\\w+\\s+registry\\.k8s\\.io/sig-storage/csi-[a-z-]+:v\\d+\\.\\d+\\.\\d+"));
        String install = Files.readString(release.resolve("INSTALL.md"));
        assertThat(install).contains("sha256sum -c SHA256SUMS", "./mirror-images $MIRROR", "--set global.imageRegistry=$MIRROR",
                "helm install").doesNotContain("@VERSION@", "@TAG@", "@CHART_VERSION@");
    }

    /**
     * INSTALL.md's one command puts the bundle's images into a registry (Debian's docker-registry on loopback, from
     * dev/bundle-setup), where the chart pulls them with global.imageRegistry: each workload's image is there under
     * pillar-csi/<workload>:<appVersion>, with the layers of its archive. The sidecars come from upstream, which
     * this machine cannot reach: --without-sidecars.
     */
    @Test
    void mirrorImagesPutsEveryImageWhereTheChartPullsIt() throws Exception {
        Path registryBinary = Path.of("/usr/bin/docker-registry");
        assertThat(Files.isExecutable(registryBinary)).as("docker-registry (Debian's package) is needed: run dev/bundle-setup").isTrue();
        int port;
        try (ServerSocket free = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = free.getLocalPort();
        }
        Path config = Files.writeString(tmp.resolve("registry.yml"), "version: 0.1\nlog:\n  level: warn\nstorage:\n  filesystem:\n"
                + "    rootdirectory: " + Files.createDirectories(tmp.resolve("registry")) + "\nhttp:\n  addr: 127.0.0.1:" + port + "\n");
        Process registry = new ProcessBuilder(registryBinary.toString(), "serve", config.toString()).redirectErrorStream(true)
                .redirectOutput(tmp.resolve("registry.log").toFile()).start();
        try {
            awaitListening(port);
            String mirror = "127.0.0.1:" + port;
            ProcessBuilder mirroring = new ProcessBuilder(release.resolve("mirror-images").toString(), "--without-sidecars", mirror)
                    .redirectErrorStream(true);
            mirroring.environment().put("SKOPEO_DEST_OPTS", "--dest-tls-verify=false");
            Process run = mirroring.start();
            String output = new String(run.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertThat(run.waitFor(5, TimeUnit.MINUTES)).as("mirror-images ends").isTrue();
            assertThat(run.exitValue()).as("mirror-images: %s", output).isZero();
            ObjectMapper json = new ObjectMapper();
            for (String w : List.of("agent", "node", "controller")) {
                JsonNode pushed = json.readTree(Bundle.run(Duration.ofMinutes(1), "skopeo", "inspect", "--tls-verify=false",
                        "docker://" + mirror + "/pillar-csi/" + w + ":" + chartAppVersion));
                JsonNode archived = json.readTree(Bundle.run(Duration.ofMinutes(1), "skopeo", "inspect", "oci-archive:" + image(w)));
                assertThat(pushed.get("Layers")).as(w + "'s layers in the mirror").isEqualTo(archived.get("Layers"));
            }
        } finally {
            registry.destroy();
            registry.waitFor();
        }
    }

    private static void awaitListening(int port) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (true) {
            try (Socket probe = new Socket(InetAddress.getLoopbackAddress(), port)) {
                return;
            } catch (IOException notYet) {
                if (System.nanoTime() > deadline) {
                    throw new AssertionError("the registry does not listen on 127.0.0.1:" + port);
                }
                Thread.sleep(100);
            }
        }
    }

    @Test
    @SuppressWarnings("unchecked")
    void chartRunsTheSidecarsTheBundleListsForMirroring() throws IOException {
        Path values = tmp.resolve("chart");
        Map<String, Object> images = (Map<String, Object>) new org.yaml.snakeyaml.Yaml()
                .<Map<String, Object>>load(Files.readString(values.resolve("pillar-csi/values.yaml"))).get("images");
        for (String line : Files.readAllLines(release.resolve("sidecar-images.txt"))) {
            if (line.isBlank() || line.startsWith("#")) {
                continue;
            }
            String[] keyImage = line.trim().split("\\s+");
            Map<String, Object> image = (Map<String, Object>) images.get(keyImage[0]);
            assertThat(image).as("images." + keyImage[0] + " in the chart's values.yaml").isNotNull();
            assertThat(image.get("registry") + "/" + image.get("repository") + ":" + image.get("tag"))
                    .as("the chart's images." + keyImage[0] + " = the image the bundle lists for mirroring (helm/sidecar-images.txt)")
                    .isEqualTo(keyImage[1]);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"agent", "node", "controller"})
    void configRunsTheJvmDirectlyWithTheLauncherArguments(String workload) {
        OciArchive image = images.get(workload);
        JsonNode config = image.config.path("config");
        List<String> entrypoint = new ArrayList<>();
        config.path("Entrypoint").forEach(a -> entrypoint.add(a.asString()));
        // the JVM itself is PID 1: no shell between the runtime and the signals
        assertThat(entrypoint).startsWith("/opt/pillar/bin/java", "@/opt/pillar/conf/jvm.options",
                "-XX:AOTCache=/opt/pillar/lib/pillar.aot").contains("-p", "/opt/pillar/app")
                .endsWith("-m", "pillar." + workload + "/pillar." + workload + "."
                        + Character.toUpperCase(workload.charAt(0)) + workload.substring(1) + "Main");
        assertThat(config.path("User").asString()).isEqualTo(workload.equals("controller") ? "65532:65532" : "0:0");
        assertThat(config.path("StopSignal").asString()).isEqualTo("SIGTERM");
        assertThat(config.path("Labels").path("org.opencontainers.image.title").asString()).isEqualTo("pillar-" + workload);
        assertThat(config.path("Labels").path("org.opencontainers.image.version").asString()).isNotBlank();
        // the tag in the archive is the one the chart pulls (its appVersion)
        assertThat(image.index.path("manifests").get(0).path("annotations").path("org.opencontainers.image.ref.name").asString())
                .isEqualTo(chartAppVersion);
        assertThat(config.path("Labels").path("org.opencontainers.image.revision").asString()).isNotBlank();
        assertThat(image.config.path("architecture").asString()).isEqualTo("amd64");
        assertThat(image.config.path("os").asString()).isEqualTo("linux");
        assertThat(image.config.path("rootfs").path("diff_ids").size()).isEqualTo(image.layers.size());
    }

    @Test
    void layersShareOneBaseAndStaySmall() {
        String base = images.get("agent").layers.getFirst().digest();
        for (var e : images.entrySet()) {
            List<OciArchive.Layer> layers = e.getValue().layers;
            StringBuilder line = new StringBuilder("image pillar-%-10s layers (compressed/unpacked MiB):".formatted(e.getKey()));
            long total = 0;
            for (OciArchive.Layer l : layers) {
                line.append(" %.1f/%.1f".formatted((double) l.compressedSize() / MIB, (double) l.uncompressedSize() / MIB));
                total += l.compressedSize();
            }
            System.out.println(line.append("  total %.1f MiB".formatted((double) total / MIB)));
            assertThat(layers.getFirst().digest()).as("the shared base layer").isEqualTo(base);
            assertThat(layers).hasSize(e.getKey().equals("controller") ? 2 : 3);
        }
        assertThat(images.get("controller").layers.getFirst().uncompressedSize()).as("base layer").isLessThan(32 * MIB);
    }

    @ParameterizedTest
    @ValueSource(strings = {"agent", "node", "controller"})
    void runtimeIsComplete(String workload) {
        OciArchive image = images.get(workload);
        Map<String, OciArchive.Entry> files = image.files();
        for (String path : List.of("opt/pillar/bin/java", "opt/pillar/lib/server/libjvm.so", "opt/pillar/lib/modules",
                "opt/pillar/lib/pillar.aot", "opt/pillar/conf/jvm.options", "opt/pillar/bin/pillar-" + workload,
                "usr/lib/x86_64-linux-gnu/libc.so.6", "lib64/ld-linux-x86-64.so.2", "etc/passwd")) {
            assertThat(image.resolve(files, path)).as(path + " in pillar-" + workload).isNotNull();
        }
        assertThat(files.keySet().stream().filter(p -> p.matches("opt/pillar/app/pillar\\." + workload + "-.*\\.jar")))
                .hasSize(1);
        boolean fabric8 = files.keySet().stream().anyMatch(p -> p.startsWith("opt/pillar/app/kubernetes-client"));
        assertThat(fabric8).as("fabric8 only in the controller's").isEqualTo(workload.equals("controller"));
        files.values().stream().filter(e -> e.path().startsWith("opt/pillar") && !e.symlink()).forEach(e -> {
            assertThat(e.uid()).as("owner of " + e.path()).isZero();
            assertThat(e.mode() & 0022).as("group/other write bits on " + e.path()).isZero();
        });
        assertThat(files.get("opt/pillar/bin/java").mode() & 0111).isNotZero();
        assertThat(files.get("tmp").mode() & 01777).isEqualTo(01777);
    }

    @Test
    void agentHasItsStorageTools() {
        // what pillar.agent runs, and what its init containers and rpc.mountd's container run (agent.nfs)
        assertTools("agent", "sbin/lvcreate", "sbin/lvchange", "sbin/lvextend", "sbin/lvremove", "sbin/lvs", "sbin/vgs",
                "sbin/zfs", "sbin/zpool", "sbin/modprobe", "usr/sbin/exportfs", "usr/sbin/rpc.nfsd", "usr/sbin/rpc.mountd",
                "bin/mount", "bin/sh");
    }

    @Test
    void nodeHasItsFilesystemTools() {
        // what pillar.node runs (it mounts through mount(2) itself), and what its init container runs
        assertTools("node", "sbin/mkfs.ext4", "sbin/mkfs.xfs", "sbin/resize2fs", "sbin/xfs_growfs", "sbin/blkid",
                "sbin/modprobe");
    }

    @Test
    void controllerIsMinimalAndNonRoot() {
        OciArchive image = images.get("controller");
        Map<String, OciArchive.Entry> files = image.files();
        for (String absent : List.of("bin/sh", "usr/bin/sh", "usr/bin/bash", "usr/bin/dpkg", "usr/sbin/modprobe")) {
            assertThat(image.resolve(files, absent)).as(absent + " in the controller's image").isNull();
        }
        assertThat(readText(image, files, "etc/passwd")).contains("nonroot:x:65532:65532:");
    }

    private void assertTools(String workload, String... paths) {
        OciArchive image = images.get(workload);
        Map<String, OciArchive.Entry> files = image.files();
        for (String path : paths) {
            OciArchive.Entry e = image.resolve(files, path);
            assertThat(e).as(path + " in pillar-" + workload).isNotNull();
            assertThat(e.mode() & 0111).as(path + " executable").isNotZero();
        }
    }

    private static String readText(OciArchive image, Map<String, OciArchive.Entry> files, String path) {
        assertThat(image.resolve(files, path)).as(path).isNotNull();
        return image.text(path);
    }

    private Path image(String workload) throws IOException {
        try (var files = Files.list(release.resolve("images"))) {
            return files.filter(p -> p.getFileName().toString().startsWith("pillar-" + workload + "-")).findFirst()
                    .orElseThrow(() -> new AssertionError("no image archive for " + workload));
        }
    }
}
