package pillar.agent.backend.lvm;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import pillar.runtime.exec.Command;
import pillar.runtime.exec.CommandFailedException;
import pillar.runtime.exec.CommandResult;
import pillar.runtime.exec.ProcessRunner;

/**
 * The namespaces LVM is kept from: those of NVMe-oF controllers (tcp, and a multipath head with a
 * tcp path), never a local PCIe drive, in a sysfs laid out as the kernel lays it out
 * ({@code block/nvmeXnY/device} is the controller, or with native multipath the subsystem).
 */
class LvmDeviceFilterTest {
    @TempDir
    Path dir;

    private final List<Command> commands = new ArrayList<>();

    @Test
    void fabricsNamespacesAreRejectedAheadOfTheHostsOwnFilter() throws IOException {
        Path sys = dir.resolve("sys");
        controller(sys, "nvme0", "pcie");
        controller(sys, "nvme1", "tcp");
        controller(sys, "nvme2", "tcp");
        namespace(sys, "nvme0n1", sys.resolve("class/nvme/nvme0"));
        namespace(sys, "nvme1n1", sys.resolve("class/nvme/nvme1"));
        Path subsystem = Files.createDirectories(sys.resolve("devices/virtual/nvme-subsystem/nvme-subsys2"));
        Files.createSymbolicLink(subsystem.resolve("nvme2"), sys.resolve("class/nvme/nvme2"));
        namespace(sys, "nvme2n1", subsystem);
        Files.createDirectories(sys.resolve("block/sda/device"));
        LvmDeviceFilter filter = new LvmDeviceFilter(answering("  global_filter=[\"r|^/dev/sdz$|\",\"a|.*|\"]\n"),
                Path.of("/dev"), sys, Duration.ofSeconds(5));

        assertThat(filter.fabricsNamespaces()).containsExactly("nvme1n1", "nvme2n1");
        List<String> argv = filter.apply(List.of("vgs", "--reportformat", "json", "vg0"));
        assertThat(argv).containsExactly("vgs", "--config", "devices { global_filter = [ \"r|^/dev/nvme1n1$|\", "
                + "\"r|^/dev/nvme2n1$|\", \"r|^/dev/sdz$|\",\"a|.*|\" ] }", "--reportformat", "json", "vg0");
        filter.apply(List.of("lvs"));
        assertThat(commands).as("the host's filter is read once, with lvmconfig")
                .containsExactly(Command.of(Duration.ofSeconds(5), "lvmconfig", "--typeconfig", "full", "devices/global_filter"));
    }

    @Test
    void withoutFabricsNamespacesTheCommandIsLeftAlone() throws IOException {
        Path sys = dir.resolve("sys");
        controller(sys, "nvme0", "pcie");
        namespace(sys, "nvme0n1", sys.resolve("class/nvme/nvme0"));
        LvmDeviceFilter filter = new LvmDeviceFilter(answering("unused"), Path.of("/dev"), sys, Duration.ofSeconds(5));
        assertThat(filter.apply(List.of("lvs", "vg0/lv"))).containsExactly("lvs", "vg0/lv");
        assertThat(new LvmDeviceFilter(answering("unused"), Path.of("/dev"), dir.resolve("none"), Duration.ofSeconds(5))
                .apply(List.of("lvs"))).as("no sysfs at all").containsExactly("lvs");
        assertThat(commands).isEmpty();
    }

    @Test
    void aFailingLvmconfigFallsBackToAcceptingTheRest() throws IOException {
        Path sys = dir.resolve("sys");
        controller(sys, "nvme3", "tcp");
        namespace(sys, "nvme3n2", sys.resolve("class/nvme/nvme3"));
        ProcessRunner failing = command -> {
            throw new CommandFailedException(command, 5, "Configuration node devices/global_filter not found", false);
        };
        assertThat(new LvmDeviceFilter(failing, Path.of("/dev"), sys, Duration.ofSeconds(5)).apply(List.of("lvs")))
                .containsExactly("lvs", "--config", "devices { global_filter = [ \"r|^/dev/nvme3n2$|\", \"a|.*|\" ] }");
    }

    private ProcessRunner answering(String stdout) {
        return command -> {
            commands.add(command);
            return new CommandResult(stdout, "");
        };
    }

    private static void controller(Path sys, String name, String transport) throws IOException {
        Path controller = Files.createDirectories(sys.resolve("class/nvme").resolve(name));
        Files.writeString(controller.resolve("transport"), transport + "\n");
    }

    private static void namespace(Path sys, String name, Path device) throws IOException {
        Path block = Files.createDirectories(sys.resolve("block").resolve(name));
        Files.createSymbolicLink(block.resolve("device"), device);
    }
}
