package pillar.node.nvme;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import pillar.api.value.Nqn;

/**
 * The sysfs reader over a hand-built tree laid out as kernel 6.1 with native multipath lays it out
 * (KERNEL-FACTS.md): heads {@code nvme<s>n<ns>} with a /dev node, per-path {@code nvme<s>c<c>n<ns>}
 * without one, the head numbered by the subsystem.
 */
class SysfsNvmeTest {
    private static final Nqn SUBSYS = Nqn.of("nqn.2024-01.io.pillar-csi:pvc-1");
    private static final Nqn OTHER = Nqn.of("nqn.2024-01.io.pillar-csi:pvc-2");
    private static final Nqn HOST = Nqn.of("nqn.2014-08.org.nvmexpress:uuid:00000000-0000-0000-0000-000000000001");

    @TempDir
    Path root;
    Path sys;
    Path dev;
    SysfsNvme sysfs;

    @BeforeEach
    void tree() throws IOException {
        sys = root.resolve("sys");
        dev = root.resolve("dev");
        Files.createDirectories(dev);
        sysfs = new SysfsNvme(sys, dev);
        // controller nvme3 (subsystem instance 1) for SUBSYS, controller nvme0 (subsystem 0) for OTHER
        controller("nvme3", "nvme-subsys1", SUBSYS, "traddr=10.0.0.5,trsvcid=4420,src_addr=10.0.0.9", "live");
        controller("nvme0", "nvme-subsys0", OTHER, "traddr=10.0.0.5,trsvcid=4420", "live");
        namespace("nvme1n1", "nvme-subsys1", SUBSYS, 2_097_152);
        namespace("nvme1c3n1", "nvme3", SUBSYS, 2_097_152);
        namespace("nvme0n1", "nvme-subsys0", OTHER, 1024);
        Files.createFile(dev.resolve("nvme1n1"));
        Files.createFile(dev.resolve("nvme0n1"));
    }

    /** A controller and its link in its subsystem's directory, as nvme_init_subsystem makes it. */
    private void controller(String name, String subsystemDir, Nqn nqn, String address, String state) throws IOException {
        Path c = sys.resolve("class/nvme").resolve(name);
        Files.createDirectories(c);
        Path subsystem = sys.resolve("class/nvme-subsystem").resolve(subsystemDir);
        Files.createDirectories(subsystem);
        Files.writeString(subsystem.resolve("subsysnqn"), nqn.value() + "\n");
        Files.createSymbolicLink(subsystem.resolve(name), c);
        Files.writeString(c.resolve("subsysnqn"), nqn.value() + "\n");
        Files.writeString(c.resolve("address"), address + "\n");
        Files.writeString(c.resolve("transport"), "tcp\n");
        Files.writeString(c.resolve("hostnqn"), HOST.value() + "\n");
        Files.writeString(c.resolve("state"), state + "\n");
    }

    private void namespace(String name, String deviceDir, Nqn nqn, long sectors) throws IOException {
        Path target = name.contains("c") ? sys.resolve("class/nvme").resolve(deviceDir)
                : sys.resolve("class/nvme-subsystem").resolve(deviceDir);
        Files.createDirectories(target);
        Files.writeString(target.resolve("subsysnqn"), nqn.value() + "\n");
        Path block = sys.resolve("block").resolve(name);
        Files.createDirectories(block);
        Files.createSymbolicLink(block.resolve("device"), target);
        Files.writeString(block.resolve("size"), sectors + "\n");
    }

    private FabricsTarget target(Nqn nqn, String traddr, int port) {
        return new FabricsTarget(nqn, "tcp", traddr, port, 600, 10, 0);
    }

    private Path limit(String block, String kib) throws IOException {
        Path file = sys.resolve("block").resolve(block).resolve("queue/max_sectors_kb");
        Files.createDirectories(file.getParent());
        Files.writeString(file, kib + "\n");
        return file;
    }

    @Test
    void transferSizeIsCappedOnTheHeadAndItsPathsOnly() throws Exception {
        Path head = limit("nvme1n1", "32768");
        Path path = limit("nvme1c3n1", "32768");
        Path otherHead = limit("nvme0n1", "32768");
        Path lookAlike = limit("nvme11c3n1", "32768");

        assertThat(sysfs.capTransferSize(dev.resolve("nvme1n1"))).containsExactly("nvme1c3n1", "nvme1n1");
        assertThat(Files.readString(head)).isEqualTo("4096");
        assertThat(Files.readString(path)).isEqualTo("4096");
        assertThat(Files.readString(otherHead).strip()).isEqualTo("32768");
        assertThat(Files.readString(lookAlike).strip()).isEqualTo("32768");
        assertThat(sysfs.capTransferSize(dev.resolve("nvme1n1"))).as("idempotent").isEmpty();
    }

    @Test
    void aLowerLimitIsLeftAndAnUnreadableOneFails() throws Exception {
        Path head = limit("nvme1n1", "1280");
        limit("nvme1c3n1", "max");
        assertThatThrownBy(() -> sysfs.capTransferSize(dev.resolve("nvme1n1")))
                .isInstanceOf(InitiatorException.class).hasMessageContaining("nvme1c3n1/queue/max_sectors_kb holds 'max'");
        assertThat(Files.readString(head).strip()).isEqualTo("1280");
        assertThatThrownBy(() -> sysfs.capTransferSize(dev.resolve("nvme1c3n1"))).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void findsTheHeadBySubsystemNotThePerPathNode() throws Exception {
        assertThat(sysfs.findHead(SUBSYS)).contains(dev.resolve("nvme1n1"));
        assertThat(sysfs.findHead(OTHER)).contains(dev.resolve("nvme0n1"));
        assertThat(sysfs.awaitHead(SUBSYS, Duration.ofMillis(1))).contains(dev.resolve("nvme1n1"));
        assertThat(sysfs.sizeBytes(dev.resolve("nvme1n1"))).isEqualTo(1L << 30);
    }

    @Test
    void noDeviceNodeYetMeansNotFound() throws Exception {
        Files.delete(dev.resolve("nvme1n1"));
        assertThat(sysfs.findHead(SUBSYS)).isEmpty();
        assertThat(sysfs.awaitHead(SUBSYS, Duration.ofMillis(150))).isEmpty();
        assertThat(sysfs.findHead(Nqn.of("nqn.2024-01.io.pillar-csi:nothing"))).isEmpty();
    }

    @Test
    void severalNamespacesInOneSubsystemAreRefused() throws IOException {
        namespace("nvme1n2", "nvme-subsys1", SUBSYS, 8);
        assertThatThrownBy(() -> sysfs.findHead(SUBSYS)).isInstanceOf(InitiatorException.class)
                .hasMessageContaining("exactly one per volume");
    }

    @Test
    void controllersAreMatchedBySubsystemAddressAndHost() throws IOException {
        assertThat(sysfs.controllers()).hasSize(2);
        assertThat(sysfs.controllerFor(target(SUBSYS, "10.0.0.5", 4420), HOST))
                .get().extracting(SysfsNvme.ControllerInfo::controller).isEqualTo(new Controller(3));
        assertThat(sysfs.controllerFor(target(SUBSYS, "10.0.0.6", 4420), HOST)).isEmpty();
        assertThat(sysfs.controllerFor(target(SUBSYS, "10.0.0.5", 4421), HOST)).isEmpty();
        assertThat(sysfs.controllerFor(target(SUBSYS, "10.0.0.5", 4420),
                Nqn.of("nqn.2014-08.org.nvmexpress:uuid:other"))).isEmpty();
        Files.writeString(sys.resolve("class/nvme/nvme3/state"), "deleting\n");
        assertThat(sysfs.controllerFor(target(SUBSYS, "10.0.0.5", 4420), HOST)).isEmpty();
        assertThat(sysfs.state(new Controller(3))).contains("deleting");
        assertThat(sysfs.state(new Controller(9))).isEmpty();
    }

    @Test
    void aControllerIsFoundThroughItsSubsystemsLinksAlone() throws IOException {
        // a controller directory no subsystem links (left by nothing the kernel does) is not read
        controller("nvme8", "nvme-subsys1", SUBSYS, "traddr=10.0.0.5,trsvcid=4420", "live");
        Files.delete(sys.resolve("class/nvme-subsystem/nvme-subsys1/nvme8"));
        Files.writeString(sys.resolve("class/nvme/nvme3/state"), "deleting\n");
        assertThat(sysfs.controllerFor(target(SUBSYS, "10.0.0.5", 4420), HOST)).isEmpty();
        Files.createSymbolicLink(sys.resolve("class/nvme-subsystem/nvme-subsys1/nvme8"), sys.resolve("class/nvme/nvme8"));
        assertThat(sysfs.controllerFor(target(SUBSYS, "10.0.0.5", 4420), HOST))
                .get().extracting(SysfsNvme.ControllerInfo::controller).isEqualTo(new Controller(8));
    }

    @Test
    void aSubsystemWithoutControllerLinksFallsBackToReadingEveryController() throws IOException {
        // should a kernel not link its controllers into the subsystem, a connected volume is still found
        Files.delete(sys.resolve("class/nvme-subsystem/nvme-subsys1/nvme3"));
        assertThat(sysfs.controllerFor(target(SUBSYS, "10.0.0.5", 4420), HOST))
                .get().extracting(SysfsNvme.ControllerInfo::controller).isEqualTo(new Controller(3));
    }

    @Test
    void aRememberedControllerCountsWhileItReachesTheTarget() throws IOException {
        FabricsTarget pvc1 = target(SUBSYS, "10.0.0.5", 4420);
        Files.delete(sys.resolve("class/nvme-subsystem/nvme-subsys1/nvme3")); // the lookup alone would miss it
        assertThat(sysfs.controllerFor(pvc1, HOST, java.util.Optional.of(new Controller(3))))
                .get().extracting(SysfsNvme.ControllerInfo::controller).isEqualTo(new Controller(3));
        Files.createSymbolicLink(sys.resolve("class/nvme-subsystem/nvme-subsys1/nvme3"), sys.resolve("class/nvme/nvme3"));
        // after a reboot the name may be another subsystem's, or nobody's: then the lookup decides
        assertThat(sysfs.controllerFor(pvc1, HOST, java.util.Optional.of(new Controller(0))))
                .get().extracting(SysfsNvme.ControllerInfo::controller).isEqualTo(new Controller(3));
        assertThat(sysfs.controllerFor(pvc1, HOST, java.util.Optional.of(new Controller(9))))
                .get().extracting(SysfsNvme.ControllerInfo::controller).isEqualTo(new Controller(3));
        Files.writeString(sys.resolve("class/nvme/nvme3/state"), "deleting\n");
        assertThat(sysfs.controllerFor(pvc1, HOST, java.util.Optional.of(new Controller(3)))).isEmpty();
    }

    @Test
    void strayEntriesAreIgnored() throws IOException {
        Files.createDirectories(sys.resolve("class/nvme/nvme-fabrics"));
        Files.createDirectories(sys.resolve("class/nvme/nvme5")); // being deleted: no attributes left
        Files.createDirectories(sys.resolve("block/loop0"));
        assertThat(sysfs.controllers()).hasSize(2);
        assertThat(SysfsNvme.parseAddress("traddr=fd00::5,trsvcid=4420\n"))
                .containsEntry("traddr", "fd00::5").containsEntry("trsvcid", "4420");
        assertThatThrownBy(() -> sysfs.devNode("../etc")).isInstanceOf(IllegalArgumentException.class);
    }
}
