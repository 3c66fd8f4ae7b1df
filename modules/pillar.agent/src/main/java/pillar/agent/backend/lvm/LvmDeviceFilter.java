package pillar.agent.backend.lvm;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.logging.Logger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import pillar.runtime.exec.Command;
import pillar.runtime.exec.CommandFailedException;
import pillar.runtime.exec.ProcessRunner;

/**
 * Keeps LVM's device scan off the NVMe-oF namespaces this host is connected to as an initiator.
 *
 * <p>A storage node is often a worker too, with volumes of its own target mounted through NVMe/TCP.
 * When the agent stops (a crash, an upgrade) those namespaces lose their controller, and the kernel
 * queues their I/O until the target is back or {@code ctrl_loss_tmo} ends. Every LVM command reads
 * the label of every block device, so an {@code lvs} or {@code vgs} of the restarting agent would wait
 * on a namespace that only the agent itself can bring back: a deadlock until the controller is lost,
 * and with it the data path of the mounted volumes. So each LVM command gets a {@code global_filter}
 * that rejects the namespaces of non-PCIe NVMe controllers, read from sysfs before the command, ahead
 * of the host's own {@code global_filter} (read once with {@code lvmconfig}, which scans nothing).
 * Local PCIe NVMe drives are not touched. Without fabrics namespaces the command is left as it is.
 */
final class LvmDeviceFilter {
    private static final Logger LOG = Logger.getLogger(LvmDeviceFilter.class.getName());
    private static final Pattern NAMESPACE = Pattern.compile("nvme[0-9]+n[0-9]+");
    private static final Pattern CONTROLLER = Pattern.compile("nvme[0-9]+");
    private static final Pattern LIST = Pattern.compile("global_filter\\s*=\\s*\\[(.*)]", Pattern.DOTALL);
    private static final String ACCEPT_ALL = "\"a|.*|\"";

    private final ProcessRunner runner;
    private final Path devRoot;
    private final Path sysRoot;
    private final Duration timeout;
    private volatile String hostPatterns;

    /**
     * @param devRoot where the namespaces' nodes are ({@code /dev}), as LVM names devices
     * @param sysRoot sysfs ({@code /sys}): {@code block/nvme*n*} and their controllers' {@code transport}
     */
    LvmDeviceFilter(ProcessRunner runner, Path devRoot, Path sysRoot, Duration timeout) {
        this.runner = runner;
        this.devRoot = devRoot;
        this.sysRoot = sysRoot;
        this.timeout = timeout;
    }

    /** The LVM command {@code argv}, with {@code --config} rejecting the fabrics namespaces when there are any. */
    List<String> apply(List<String> argv) {
        List<String> fabrics = fabricsNamespaces();
        if (fabrics.isEmpty()) {
            return argv;
        }
        String rejects = fabrics.stream().map(n -> "\"r|^" + devRoot.resolve(n) + "$|\"").collect(Collectors.joining(", "));
        List<String> out = new ArrayList<>(argv.size() + 2);
        out.add(argv.getFirst());
        out.add("--config");
        out.add("devices { global_filter = [ " + rejects + ", " + hostPatterns() + " ] }");
        out.addAll(argv.subList(1, argv.size()));
        return out;
    }

    /** The block devices (e.g. {@code nvme1n1}) of namespaces reached through a non-PCIe controller. */
    List<String> fabricsNamespaces() {
        try (Stream<Path> blocks = Files.list(sysRoot.resolve("block"))) {
            return blocks.filter(b -> NAMESPACE.matcher(b.getFileName().toString()).matches())
                    .filter(LvmDeviceFilter::throughFabrics).map(b -> b.getFileName().toString()).sorted().toList();
        } catch (IOException e) {
            return List.of(); // no sysfs block tree: no namespaces to keep LVM from
        }
    }

    /**
     * A namespace's {@code device} is its controller (with a {@code transport}), or, with native
     * multipath, its subsystem (whose controllers are listed in it): any non-PCIe one counts.
     */
    private static boolean throughFabrics(Path block) {
        Path device = block.resolve("device");
        if (Files.exists(device.resolve("transport"))) {
            return !transport(device).equals("pcie");
        }
        try (Stream<Path> entries = Files.list(device)) {
            return entries.filter(e -> CONTROLLER.matcher(e.getFileName().toString()).matches())
                    .anyMatch(c -> Files.exists(c.resolve("transport")) && !transport(c).equals("pcie"));
        } catch (IOException e) {
            return false;
        }
    }

    private static String transport(Path controller) {
        try {
            return Files.readString(controller.resolve("transport")).strip();
        } catch (IOException e) {
            return "";
        }
    }

    /** The host's devices/global_filter patterns (LVM's default accepts all), read once. */
    private String hostPatterns() {
        String known = hostPatterns;
        if (known != null) {
            return known;
        }
        String patterns = ACCEPT_ALL;
        try {
            String out = runner.run(Command.of(timeout, "lvmconfig", "--typeconfig", "full", "devices/global_filter")).stdout();
            Matcher m = LIST.matcher(out);
            if (m.find() && !m.group(1).isBlank()) {
                patterns = m.group(1).strip();
            } else {
                LOG.warning(() -> "lvmconfig printed no devices/global_filter list (" + out.strip() + "); using " + ACCEPT_ALL);
            }
        } catch (CommandFailedException e) {
            LOG.warning(() -> "lvmconfig devices/global_filter failed (" + e.getMessage() + "); using " + ACCEPT_ALL);
        }
        hostPatterns = patterns;
        return patterns;
    }
}
