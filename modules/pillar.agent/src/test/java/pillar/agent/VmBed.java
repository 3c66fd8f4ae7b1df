package pillar.agent;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import pillar.runtime.exec.Command;
import pillar.runtime.exec.CommandResult;
import pillar.runtime.exec.SystemProcessRunner;

/**
 * What the agent's *KernelIT tests need from the qemu VM: the check that they run there (with zfs
 * when asked), commands, loop devices, a volume group with a thin pool and a ZFS pool on them, and
 * their removal.
 */
final class VmBed {
    static final Path CONFIGFS = Path.of("/sys/kernel/config");
    private static final SystemProcessRunner RUNNER = new SystemProcessRunner();
    private static final Pattern PERCENT = Pattern.compile("\\((\\d+)%\\)");

    private VmBed() {
    }

    /** Fails on purpose anywhere but in the VM, so that a misconfigured CI cannot report a pass. */
    static void requireVm(boolean zfs) {
        assertThat(System.getenv("PILLAR_KERNEL_VM")).as("PILLAR_KERNEL_VM: runs only in the qemu VM (dev/kernel-it)")
                .isEqualTo("1");
        assertThat(CONFIGFS.resolve("nvmet")).as("nvmet configfs").isDirectory();
        if (zfs) {
            assertThat(Path.of("/sys/module/zfs")).as("the zfs module in the VM (dev/vm/setup builds it with dkms)").isDirectory();
        }
    }

    static String run(String... argv) {
        return RUNNER.run(Command.of(Duration.ofMinutes(2), argv)).stdout();
    }

    /** What a command that must succeed printed, stdout then stderr (zfs prints some reports on either). */
    static String runMerged(String... argv) {
        CommandResult result = RUNNER.run(Command.of(Duration.ofMinutes(2), argv));
        return result.stdout() + result.stderr();
    }

    /** A loop device over a new sparse file of {@code bytes} in {@code dir}. */
    static Path loopDevice(Path dir, String name, long bytes) throws IOException {
        Path image = dir.resolve(name + ".img");
        try (RandomAccessFile file = new RandomAccessFile(image.toFile(), "rw")) {
            file.setLength(bytes);
        }
        return Path.of(run("losetup", "--find", "--show", image.toString()).strip());
    }

    /**
     * A device-mapper {@code delay} target {@code /dev/mapper/<name>} over {@code sectors} of {@code device} from
     * {@code offset} (in 512-byte sectors), every read held {@code readMs} and every write {@code writeMs}; made
     * without udev (the VM has none): dmsetup makes the node itself. Remove it with {@link #removeDelayed}.
     */
    static Path delayed(String name, Path device, long offset, long sectors, int readMs, int writeMs) {
        run("modprobe", "dm-delay");
        run("dmsetup", "create", "--noudevsync", "--noudevrules", name, "--table", "0 " + sectors + " delay " + device + " " + offset
                + " " + readMs + " " + device + " " + offset + " " + writeMs);
        run("dmsetup", "mknodes", name);
        return Path.of("/dev/mapper", name);
    }

    /**
     * Sets new delays on the {@link #delayed} device {@code name} in place (suspended, its table reloaded, resumed:
     * what it holds stays), so that a bed is made and filled fast and only the step under test is slow.
     */
    static void redelay(String name, int readMs, int writeMs) {
        String[] table = run("dmsetup", "table", name).strip().split("\\s+");
        if (table.length != 9 || !table[2].equals("delay")) {
            throw new IllegalStateException("not a read and write delay target: " + String.join(" ", table));
        }
        table[5] = Integer.toString(readMs);
        table[8] = Integer.toString(writeMs);
        run("dmsetup", "suspend", "--noudevsync", name);
        run("dmsetup", "reload", "--noudevsync", name, "--table", String.join(" ", table));
        run("dmsetup", "resume", "--noudevsync", "--noudevrules", name);
    }

    static void removeDelayed(String name) {
        run("dmsetup", "remove", "--noudevsync", "--noudevrules", name);
    }

    /** The percentage in a background job's progress ("... (42%) ..."); -1 without one. */
    static int percent(String message) {
        Matcher m = PERCENT.matcher(message);
        return m.find() ? Integer.parseInt(m.group(1)) : -1;
    }

    /** A volume group on {@code loop} with a thin pool {@code pool0} of {@code thinPool} (e.g. "512m"). */
    static void volumeGroup(String vg, Path loop, String thinPool) {
        run("pvcreate", "-q", loop.toString());
        run("vgcreate", "-q", vg, loop.toString());
        run("lvcreate", "-q", "--type", "thin-pool", "-L", thinPool, "-n", "pool0", vg);
    }

    /** A ZFS pool on {@code loop}, not mounted, with no cache file, and the dataset {@code pool/k8s}. */
    static void zpool(String pool, Path loop) {
        run("zpool", "create", "-f", "-m", "none", "-o", "cachefile=none", pool, loop.toString());
        run("zfs", "create", "-o", "mountpoint=none", pool + "/k8s");
    }

    /** The names in a directory. */
    static List<String> entries(Path dir) throws IOException {
        try (Stream<Path> entries = Files.list(dir)) {
            return entries.map(p -> p.getFileName().toString()).sorted().toList();
        }
    }

    static String sha256(byte[] data) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(data));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /** A step of a clean-up that must not stop the others. */
    interface Step {
        void run() throws Exception;
    }

    /** Runs each step, collecting the failures: a clean-up that says what it left behind. */
    static List<String> cleanUp(Step... steps) {
        List<String> problems = new ArrayList<>();
        for (Step step : steps) {
            try {
                step.run();
            } catch (Exception e) {
                problems.add(e.getMessage());
            }
        }
        return problems;
    }
}
