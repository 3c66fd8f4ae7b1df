package pillar.agent.configfs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import pillar.runtime.exec.Command;
import pillar.runtime.exec.ProcessRunner;
import pillar.runtime.exec.SystemProcessRunner;

/**
 * What the *KernelIT contracts need from the qemu VM: the check that they run there, loop devices to
 * back namespaces, and the removal of what they made.
 */
final class KernelBed {
    static final Path CONFIGFS = Path.of("/sys/kernel/config");
    private static final Duration DEADLINE = Duration.ofMinutes(1);
    private static final ProcessRunner RUNNER = new SystemProcessRunner();

    private KernelBed() {
    }

    /** Fails on purpose anywhere but in the VM, so that a misconfigured CI cannot report a pass. */
    static void requireVm() {
        assertThat(System.getenv("PILLAR_KERNEL_VM"))
                .as("PILLAR_KERNEL_VM: the *KernelIT tier runs only inside the qemu VM; use dev/kernel-it")
                .isEqualTo("1");
        assertThat(CONFIGFS.resolve("nvmet")).as("nvmet configfs (modules nvmet, nvmet-tcp and configfs mounted)")
                .isDirectory();
    }

    /**
     * Whether the VM's kernel was built with nvmet authentication (CONFIG_NVME_TARGET_AUTH), told by its
     * release and never by probing nvmet: Debian 12's 6.1 has not, bookworm-backports' 6.12 has.
     */
    static boolean hasNvmetAuth() {
        String[] release = System.getProperty("os.version").split("[.-]");
        int major = Integer.parseInt(release[0]);
        int minor = Integer.parseInt(release[1]);
        return major > 6 || (major == 6 && minor >= 12);
    }

    /** A loop device over a new sparse file of {@code bytes} in {@code dir}. */
    static Path loopDevice(Path dir, String name, long bytes) throws IOException {
        Path image = dir.resolve(name + ".img");
        try (RandomAccessFile file = new RandomAccessFile(image.toFile(), "rw")) {
            file.setLength(bytes);
        }
        return Path.of(run("losetup", "--find", "--show", image.toString()).strip());
    }

    static void detach(Path loop) {
        if (loop != null) {
            run("losetup", "--detach", loop.toString());
        }
    }

    /** Removes what the contracts made (names {@link ConfigfsTreeContract#OURS} accepts); fails listing what stayed. */
    static void wipe(ConfigfsTree tree) {
        List<String> problems = TreeWalk.wipe(tree, CONFIGFS.resolve("nvmet"), ConfigfsTreeContract.OURS);
        assertThat(problems).as("what the clean-up could not remove").isEmpty();
    }

    private static String run(String... argv) {
        return RUNNER.run(Command.of(DEADLINE, argv)).stdout();
    }
}
