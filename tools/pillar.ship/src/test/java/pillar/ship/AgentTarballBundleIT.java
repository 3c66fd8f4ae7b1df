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
import java.nio.file.attribute.PosixFilePermission;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * The bare-metal agent tarball: unpacked, checksums verified, its systemd unit checked by systemd,
 * and the agent started from it (its example configuration, a stand-in configfs root) until its
 * readiness answers 200: where it was unpacked, and installed at /opt/pillar with its AOT cache.
 * Prints launch-to-ready and idle RSS.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class AgentTarballBundleIT {
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1)).build();

    @TempDir
    static Path tmp;
    Path agent;

    @BeforeAll
    void unpack() throws IOException {
        Files.createDirectories(tmp.resolve("unpacked"));
        agent = Bundle.unpack(Bundle.tarball("-linux-amd64.tar.gz"), tmp.resolve("unpacked"));
    }

    @AfterAll
    void remove() throws IOException {
        Bundle.removeTree(tmp);
    }

    @Test
    void everyFileIsInTheChecksumsAndMatches() throws IOException {
        int files = Bundle.verifyChecksums(agent);
        System.out.printf("agent tarball %s: %d files verified against SHA256SUMS, runtime %d MiB%n",
                agent.getFileName(), files, Bundle.run(Duration.ofSeconds(30), "du", "-sm", agent.toString()).split("\\s")[0]
                        .transform(Integer::parseInt));
        assertThat(Files.getPosixFilePermissions(agent.resolve("bin/pillar-agent"))).contains(PosixFilePermission.OWNER_EXECUTE);
        assertThat(agent.resolve("etc/agent.example.yaml")).isRegularFile();
        assertThat(agent.resolve("README")).content().contains("systemctl enable --now pillar-agent");
    }

    @Test
    void systemdAcceptsTheUnit() throws IOException {
        String unit = Files.readString(agent.resolve("systemd/pillar-agent.service"));
        assertThat(unit).contains("Type=exec", "Restart=on-failure", "ExecStartPre=+/sbin/modprobe -a nvmet nvmet_tcp",
                "ExecStart=/opt/pillar/bin/pillar-agent --config /etc/pillar-agent/agent.yaml", "ProtectSystem=full",
                "NoNewPrivileges=yes").doesNotContain("ProtectKernelTunables=yes", "PrivateDevices=yes");
        // systemd's own parser; ExecStart pointed at the unpacked launcher, which must be executable
        Path copy = tmp.resolve("pillar-agent.service");
        Files.writeString(copy, unit.replace("/opt/pillar/", agent.toAbsolutePath() + "/"));
        Bundle.Result r = Bundle.exec(Duration.ofSeconds(60), List.of("systemd-analyze", "verify", "--man=no", copy.toString()));
        assertThat(r.exit()).as(r.output()).isZero();
        assertThat(r.output()).as("systemd-analyze's complaints").isBlank();
    }

    @Test
    void startsWhereverItWasUnpacked() throws Exception {
        // not at /opt/pillar: the launcher finds its runtime, the JVM runs without the AOT cache
        Path launcher = agent.resolve("bin/pillar-agent");
        runUntilReady("unpacked elsewhere (no AOT cache)", List.of(launcher.toString()), "auto");
    }

    @Test
    void startsFromOptPillarWithItsAotCache() throws Exception {
        // installed as its README says, at /opt/pillar, in a private mount namespace (the host's /opt is
        // left alone); AOTMode=on: the JVM refuses to start unless the trained cache is usable there
        List<String> command = List.of("unshare", "--mount", "--propagation", "private", "--", "sh", "-c",
                "mount -t tmpfs -o size=1m pillar-opt /opt && mkdir /opt/pillar && mount --bind \"$0\" /opt/pillar"
                        + " && exec /opt/pillar/bin/pillar-agent \"$@\"",
                agent.toAbsolutePath().toString());
        runUntilReady("installed at /opt/pillar (AOT cache)", command, "on");
    }

    /** Starts the agent (COMMAND + its arguments) until ready; prints launch to ready and idle RSS; stops it. */
    private void runUntilReady(String label, List<String> launcher, String aotMode) throws Exception {
        Path run = Files.createTempDirectory(tmp, "run");
        for (String d : List.of("hosts", "ports", "subsystems")) {
            Files.createDirectories(run.resolve("configfs/nvmet").resolve(d));
        }
        int health = freePort();
        List<String> command = new java.util.ArrayList<>(launcher);
        // the example configuration as shipped, with this test's ports and directories
        command.addAll(List.of("--config", agent.resolve("etc/agent.example.yaml").toAbsolutePath().toString(),
                "--agent.listen.host=127.0.0.1", "--agent.listen.port=" + freePort(),
                "--agent.state-dir=" + run.resolve("state"), "--agent.configfs-root=" + run.resolve("configfs"),
                "--health.host=127.0.0.1", "--health.port=" + health));
        Path log = run.resolve("agent.log");
        ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile());
        pb.environment().put("JDK_JAVA_OPTIONS", "-XX:AOTMode=" + aotMode);
        long t0 = System.nanoTime();
        Process p = pb.start();
        try {
            URI ready = URI.create("http://127.0.0.1:" + health + "/observe/health/ready");
            int status = 0;
            long deadline = t0 + TimeUnit.SECONDS.toNanos(90);
            while (status != 200 && p.isAlive() && System.nanoTime() < deadline) {
                status = get(ready);
                if (status != 200) {
                    Thread.sleep(10);
                }
            }
            long readyMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
            assertThat(status).as("readiness; the agent's log:\n" + Files.readString(log)).isEqualTo(200);
            // exec all the way: the process started is the JVM itself
            assertThat(Files.readString(Path.of("/proc/" + p.pid() + "/comm")).strip()).isEqualTo("java");
            Thread.sleep(5000); // idle, past the first native heap trim
            String rss = Files.readAllLines(Path.of("/proc/" + p.pid() + "/status")).stream()
                    .filter(l -> l.startsWith("VmRSS:")).findFirst().orElseThrow().replaceAll("\\D", "");
            System.out.printf("agent from the tarball, %s: launch to ready %d ms, idle RSS %.1f MiB%n", label, readyMs,
                    Long.parseLong(rss) / 1024.0);
            p.destroy(); // SIGTERM, as systemd stops it
            assertThat(p.waitFor(30, TimeUnit.SECONDS)).as("stopped on SIGTERM").isTrue();
            assertThat(Files.readString(log)).contains("pillar-agent ready");
        } finally {
            p.destroyForcibly();
        }
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
