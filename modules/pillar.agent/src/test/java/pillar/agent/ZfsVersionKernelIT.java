package pillar.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static pillar.agent.VmBed.run;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The agent as a real process on the main kernel (6.1, zfs module 2.1 in the VM) against the zfs tools it finds
 * on its PATH: with the 6.12 kernel's zfs 2.3 tools and libraries first on its PATH and LD_LIBRARY_PATH it
 * refuses to start with exit status 2, naming both versions (that the host's own tools pass the check is
 * asserted by AgentProcessKernelIT, which starts the agent with them anyway). The 2.3 userland is the one dev/vm/setup-6.12 unpacks under
 * {@value #USERLAND_ROOT}/6.12*; without it the test fails.
 */
class ZfsVersionKernelIT {
    private static final long MIB = 1L << 20;
    private static final String POOL = "pillarzfsverpool";
    private static final String USERLAND_ROOT = "/var/lib/pillar-csi-vm/userland";

    @TempDir
    Path dir;

    private AgentProcess agent;
    private Path loop;

    @BeforeAll
    static void requireVmWithZfs21() throws IOException {
        VmBed.requireVm(true);
        assertThat(Files.readString(Path.of("/sys/module/zfs/version")).strip())
                .as("the zfs module of the main kernel (6.1: zfs 2.1; dev/kernel-it runs this class there only)").startsWith("2.1.");
    }

    @Test
    void toolsOfAnotherReleaseThanTheModuleRefuseTheStartNamingBoth() throws Exception {
        Path userland = userland23();
        loop = VmBed.loopDevice(dir, "zpool", 256 * MIB);
        VmBed.zpool(POOL, loop);
        Path config = AgentProcess.writeConfig(dir.resolve("agent.yaml"), 19541, 19841, dir.resolve("state"), List.of(),
                "{name: zfs, type: zfs, pool: " + POOL + ", parent-dataset: k8s}");

        String module = Files.readString(Path.of("/sys/module/zfs/version")).strip();
        // the 2.3 tools first on its PATH: it refuses to start, naming both versions
        Map<String, String> environment = Map.of("PATH", userland.resolve("usr/sbin") + ":" + System.getenv("PATH"),
                "LD_LIBRARY_PATH", userland.resolve("usr/lib/x86_64-linux-gnu").toString());
        String tools = zfsVersion(userland.resolve("usr/sbin/zfs"), environment).lines().findFirst().orElse("");
        assertThat(tools).as("zfs version of %s (the setup of this test)", userland).startsWith("zfs-2.3.");
        agent = new AgentProcess(Files.createDirectories(dir.resolve("mismatch")), 19541, 19841, environment);
        assertThat(agent.startExpectingExit(config)).as("the agent's exit status; its log:\n%s", agent.log()).isEqualTo(2);
        assertThat(agent.log()).contains("pillar-agent: refusing to start: the zfs tools are " + tools.substring("zfs-".length())
                + " (zfs version) but the host's zfs module is " + module + " (release lines 2.3 and 2.1)");
    }

    /** The 6.12 kernel's zfs userland (usr/sbin/zfs 2.3 and its libraries); fails when dev/vm/setup-6.12 has not made it. */
    private static Path userland23() throws IOException {
        List<Path> found = new ArrayList<>();
        Path root = Path.of(USERLAND_ROOT);
        if (Files.isDirectory(root)) {
            try (DirectoryStream<Path> dirs = Files.newDirectoryStream(root, "6.12*")) {
                dirs.forEach(found::add);
            }
        }
        assertThat(found).as("the zfs 2.3 userland of the 6.12 kernel in %s/6.12*/ (dev/vm/setup-6.12 unpacks it)", USERLAND_ROOT)
                .isNotEmpty();
        Path userland = found.stream().sorted().toList().getLast();
        assertThat(userland.resolve("usr/sbin/zfs")).as("the 2.3 zfs of %s", userland).isExecutable();
        assertThat(userland.resolve("usr/lib/x86_64-linux-gnu")).as("the 2.3 libraries of %s", userland).isDirectory();
        return userland;
    }

    /** What {@code zfs version} of {@code zfs} prints on stdout with these variables in its environment; it must exit 0. */
    private static String zfsVersion(Path zfs, Map<String, String> environment) throws Exception {
        ProcessBuilder builder = new ProcessBuilder(zfs.toString(), "version").redirectError(ProcessBuilder.Redirect.DISCARD);
        builder.environment().putAll(environment);
        Process process = builder.start();
        String out = new String(process.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        assertThat(process.waitFor(1, TimeUnit.MINUTES)).as("%s version finished", zfs).isTrue();
        assertThat(process.exitValue()).as("the exit status of %s version, which printed '%s'", zfs, out).isZero();
        return out;
    }

    @AfterEach
    void cleanUp() {
        if (agent != null) {
            agent.close();
        }
        List<String> problems = VmBed.cleanUp(() -> run("zpool", "destroy", "-f", POOL),
                () -> {
                    if (loop != null) {
                        run("losetup", "--detach", loop.toString());
                    }
                });
        System.out.println("[zfs-version-kernel-it] clean-up: " + (problems.isEmpty() ? "nothing left" : problems));
    }
}
