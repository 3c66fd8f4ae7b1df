package pillar.agent.configfs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.Callable;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import pillar.runtime.exec.Command;
import pillar.runtime.exec.ProcessRunner;
import pillar.runtime.exec.SystemProcessRunner;
import pillar.api.value.Nqn;

/**
 * Proves the test bed and {@link ConfigfsNvmetTarget} on the real kernel: a thin LV on a loop device is
 * exported through nvmet configfs (ACL entry, not allow-any-host), reached over NVMe/TCP on loopback,
 * formatted and mounted; data written survives a disconnect and reconnect byte for byte; the export is
 * torn down in the kernel's order and nothing is left behind. Also checks the idempotency contract
 * (everything applied twice) and the live-port rule (a new address on a linked port is refused).
 *
 * <p>Runs only inside the qemu VM ({@code dev/kernel-it}); anywhere else it fails on purpose, so a
 * misconfigured CI cannot report it as passed.
 */
class NvmetLoopbackKernelIT {
    private static final Path CONFIGFS = Path.of("/sys/kernel/config");
    private static final Path NVMET = CONFIGFS.resolve("nvmet");
    private static final Duration COMMAND_DEADLINE = Duration.ofMinutes(2);
    private static final PortId PORT = PortId.of(1);
    private static final PortAddress ADDRESS = PortAddress.tcp("127.0.0.1", 4420);
    private static final NamespaceId NSID = NamespaceId.of(1);
    private static final long LV_BYTES = 128L << 20;
    private static final int DATA_BYTES = 4 << 20;

    private final ProcessRunner runner = new SystemProcessRunner();
    private final ConfigfsNvmetTarget target = new ConfigfsNvmetTarget(CONFIGFS);
    private final FabricsInitiator initiator = new FabricsInitiator(Path.of("/dev"), Path.of("/sys"));
    private final String suffix = UUID.randomUUID().toString().substring(0, 8);
    private final Nqn subsystem = Nqn.of("nqn.2024-01.io.pillar-csi:kernel-it-" + suffix);
    private final Nqn host = Nqn.of("nqn.2014-08.org.nvmexpress:uuid:" + UUID.randomUUID());
    private final String vg = "kit" + suffix;
    private final long started = System.nanoTime();

    @TempDir
    Path work;

    // what exists, so that cleanup undoes it even after a failure
    private String loopDevice;
    private boolean vgCreated;
    private Path mounted;

    @BeforeAll
    static void onlyInTheKernelVm() {
        assertThat(System.getenv("PILLAR_KERNEL_VM"))
                .as("PILLAR_KERNEL_VM: the *KernelIT tier runs only inside the qemu VM; use dev/kernel-it")
                .isEqualTo("1");
        assertThat(NVMET).as("nvmet configfs (modules nvmet, nvmet-tcp and configfs mounted)").isDirectory();
        assertThat(Path.of("/dev/nvme-fabrics")).as("the NVMe over Fabrics initiator (module nvme-tcp)").exists();
    }

    @Test
    void thinVolumeExportedOverNvmeTcpKeepsItsDataAndLeavesNothingBehind() throws Exception {
        assertNothingLeft("before the test");
        Path image = work.resolve("pv.img");
        step("create a sparse 512 MiB backing file", () -> {
            try (RandomAccessFile file = new RandomAccessFile(image.toFile(), "rw")) {
                file.setLength(512L << 20);
            }
        });
        loopDevice = step("losetup", () -> run("losetup", "--find", "--show", image.toString()).strip());
        step("pvcreate " + loopDevice, () -> run("pvcreate", "--yes", loopDevice));
        step("vgcreate " + vg, () -> run("vgcreate", vg, loopDevice));
        vgCreated = true;
        step("lvcreate thin pool", () -> run("lvcreate", "--yes", "--type", "thin-pool", "-L", "256M", "-n", "pool", vg));
        step("lvcreate thin volume", () -> run("lvcreate", "--yes", "-V", "128M", "--thinpool", vg + "/pool", "-n", "vol", vg));
        Path lv = Path.of("/dev", vg, "vol");
        assertThat(lv).as("LVM made the device node without udev").exists();

        step("export with ConfigfsNvmetTarget", this::export);
        step("export again: idempotent", this::export);
        assertExported(lv);
        step("a live port refuses another address", () -> {
            assertThatThrownBy(() -> target.ensurePort(PORT, PortAddress.tcp("127.0.0.1", 4421)))
                    .isInstanceOf(NvmetTargetException.class)
                    .hasMessageContaining("is live")
                    .hasMessageContaining("addr_trsvcid is '4420', wanted '4421'");
            assertThat(read(NVMET.resolve("ports/1/addr_trsvcid"))).isEqualTo("4420");
        });

        FabricsInitiator.Controller controller = step("connect over NVMe/TCP",
                () -> initiator.connect(ADDRESS, subsystem, host));
        System.out.println("[kernel-it]   connected: " + controller);
        Path device = step("wait for the namespace's block device",
                () -> initiator.awaitHead(subsystem, NSID, Duration.ofSeconds(30)));
        System.out.println("[kernel-it]   block device: " + device);
        assertThat(initiator.sizeOf(device)).as("size of " + device).isEqualTo(LV_BYTES);

        step("mkfs.ext4 " + device, () -> run("mkfs.ext4", "-q", "-F", device.toString()));
        Path mountPoint = Files.createDirectory(work.resolve("mnt"));
        byte[] data = new byte[DATA_BYTES];
        long seed = System.nanoTime();
        new Random(seed).nextBytes(data);
        String written = sha256(data);
        mount(device, mountPoint);
        step("write 4 MiB of random data (seed " + seed + ") and fsync", () -> {
            try (FileChannel file = FileChannel.open(mountPoint.resolve("data.bin"), StandardOpenOption.CREATE_NEW,
                    StandardOpenOption.WRITE)) {
                file.write(ByteBuffer.wrap(data));
                file.force(true);
            }
        });
        unmount();
        step("disconnect " + controller.name(), () -> initiator.disconnect(controller.name(), Duration.ofSeconds(30)));

        FabricsInitiator.Controller again = step("connect again", () -> initiator.connect(ADDRESS, subsystem, host));
        Path deviceAgain = step("wait for the block device again",
                () -> initiator.awaitHead(subsystem, NSID, Duration.ofSeconds(30)));
        mount(deviceAgain, mountPoint);
        String readBack = step("read the data back", () -> sha256(Files.readAllBytes(mountPoint.resolve("data.bin"))));
        System.out.println("[kernel-it]   sha256 written " + written + ", read " + readBack);
        assertThat(readBack).as("SHA-256 of the data after unmount, reconnect and mount").isEqualTo(written);
        unmount();
        step("disconnect " + again.name(), () -> initiator.disconnect(again.name(), Duration.ofSeconds(30)));

        step("tear the export down", () -> target.removeSubsystem(subsystem));
        step("tear down again: idempotent", () -> target.removeSubsystem(subsystem));
        step("lvremove", () -> run("lvremove", "--yes", vg + "/vol", vg + "/pool"));
        step("vgremove", () -> run("vgremove", "--yes", vg));
        vgCreated = false;
        step("pvremove", () -> run("pvremove", "--yes", loopDevice));
        step("losetup -d", () -> run("losetup", "--detach", loopDevice));
        String loop = Path.of(loopDevice).getFileName().toString();
        loopDevice = null;
        assertNothingLeft("after the teardown");
        assertThat(Path.of("/sys/block", loop, "loop/backing_file")).as(loop + " is detached").doesNotExist();
    }

    private void export() {
        target.ensureSubsystem(subsystem, false);
        target.ensureNamespace(subsystem, NSID, Path.of("/dev", vg, "vol"));
        target.ensurePort(PORT, ADDRESS);
        target.allowHost(subsystem, host);
        target.linkPort(PORT, subsystem);
    }

    private void assertExported(Path lv) throws IOException {
        Path subsystemDir = NVMET.resolve("subsystems").resolve(subsystem.value());
        assertThat(read(subsystemDir.resolve("attr_allow_any_host"))).isEqualTo("0");
        assertThat(read(subsystemDir.resolve("namespaces/1/device_path"))).isEqualTo(lv.toString());
        assertThat(read(subsystemDir.resolve("namespaces/1/enable"))).isEqualTo("1");
        assertThat(FabricsInitiator.list(subsystemDir.resolve("allowed_hosts"))).hasSize(1);
        assertThat(FabricsInitiator.list(NVMET.resolve("ports/1/subsystems"))).hasSize(1);
        assertThat(read(NVMET.resolve("ports/1/addr_traddr"))).isEqualTo("127.0.0.1");
    }

    private void mount(Path device, Path mountPoint) throws Exception {
        step("mount " + device, () -> run("mount", "-t", "ext4", device.toString(), mountPoint.toString()));
        mounted = mountPoint;
    }

    private void unmount() throws Exception {
        Path mountPoint = mounted;
        step("umount", () -> run("umount", mountPoint.toString()));
        mounted = null;
    }

    private void assertNothingLeft(String when) throws IOException {
        for (String dir : List.of("subsystems", "ports", "hosts")) {
            assertThat(FabricsInitiator.list(NVMET.resolve(dir))).as("nvmet/%s %s", dir, when).isEmpty();
        }
        assertThat(FabricsInitiator.list(Path.of("/sys/class/nvme"))).as("NVMe controllers %s", when).isEmpty();
        assertThat(FabricsInitiator.list(Path.of("/sys/block")))
                .as("device-mapper devices %s", when)
                .noneMatch(p -> p.getFileName().toString().startsWith("dm-"));
    }

    /** Undoes whatever the test got to, in reverse order, even after a failure; reports what it could not. */
    @AfterEach
    void cleanUp() {
        List<String> problems = new ArrayList<>();
        attempt(problems, "umount", () -> {
            if (mounted != null) {
                run("umount", "--lazy", mounted.toString());
            }
        });
        attempt(problems, "disconnect", () -> {
            for (String controller : initiator.controllersOf(subsystem)) {
                initiator.disconnect(controller, Duration.ofSeconds(30));
            }
        });
        attempt(problems, "remove the export", () -> target.removeSubsystem(subsystem));
        attempt(problems, "remove the volume group", () -> {
            if (vgCreated) {
                run("vgremove", "--force", "--yes", vg);
            }
        });
        attempt(problems, "remove the physical volume and the loop device", () -> {
            if (loopDevice != null) {
                run("pvremove", "--force", "--force", "--yes", loopDevice);
                run("losetup", "--detach", loopDevice);
            }
        });
        attempt(problems, "report", () -> System.out.println("[kernel-it] left after cleanup: " + leftovers()));
        problems.forEach(p -> System.out.println("[kernel-it] CLEANUP FAILED: " + p));
    }

    /** What the kernel still holds that a test could have made: empty lists when all is clean. */
    private static String leftovers() throws IOException {
        List<String> left = new ArrayList<>();
        for (String dir : List.of("subsystems", "ports", "hosts")) {
            left.add("nvmet/" + dir + "=" + names(NVMET.resolve(dir), ""));
        }
        left.add("controllers=" + names(Path.of("/sys/class/nvme"), ""));
        left.add("dm=" + names(Path.of("/sys/block"), "dm-"));
        return String.join(" ", left);
    }

    private static List<String> names(Path dir, String prefix) throws IOException {
        return FabricsInitiator.list(dir).stream().map(p -> p.getFileName().toString())
                .filter(n -> n.startsWith(prefix)).toList();
    }

    private interface Step {
        void run() throws Exception;
    }

    private static void attempt(List<String> problems, String what, Step action) {
        try {
            action.run();
        } catch (Exception | AssertionError e) {
            problems.add(what + ": " + e);
        }
    }

    private void step(String name, Step action) throws Exception {
        step(name, () -> {
            action.run();
            return null;
        });
    }

    /** Runs one step and prints it with its duration, so the VM console shows where the time goes. */
    private <T> T step(String name, Callable<T> action) throws Exception {
        System.out.printf("[kernel-it] +%6.1fs %s ...%n", (System.nanoTime() - started) / 1e9, name);
        long t0 = System.nanoTime();
        T result = action.call();
        System.out.printf("[kernel-it] +%6.1fs %s: done in %.2f s%n", (System.nanoTime() - started) / 1e9, name,
                (System.nanoTime() - t0) / 1e9);
        return result;
    }

    private String run(String... argv) {
        return runner.run(Command.of(COMMAND_DEADLINE, argv)).stdout();
    }

    private static String read(Path attribute) throws IOException {
        return Files.readString(attribute).strip();
    }

    private static String sha256(byte[] data) throws NoSuchAlgorithmException {
        return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(data));
    }
}
