package pillar.agent.backend;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Who uses a block device now, read from sysfs and procfs without opening the device (an open of ours would be a
 * use itself, and Java has no {@code O_EXCL} open of a block device). For a device that keeps no open count of its
 * own (a zvol: LVM has the device-mapper's, {@code lv_attr}), the device or one of its partitions is in use when:
 * <ul>
 *   <li>a device is stacked on it: {@code /sys/block/<dev>/holders} is not empty (device-mapper, md, ...);</li>
 *   <li>it is mounted: its {@code major:minor} ({@code /sys/block/<dev>/dev}) is in {@code /proc/self/mountinfo};</li>
 *   <li>a process holds it open: a {@code /proc/<pid>/fd/<n>} link names its node (the name read with readlink, which
 *       never touches the file, so a hung NFS file is never stat'ed), confirmed by the device number ({@link DeviceIdentity}).</li>
 * </ul>
 * Not seen: a mount in another mount namespace (only the agent's own is read), a process in another PID namespace or
 * one whose fds the agent may not read, and the kernel's own users without holders, the nvmet target among them
 * (asked through {@link KernelExports} instead). Each answer is of this moment: a use that starts just after it is not.
 */
public final class DeviceUsers {
    private static final Pattern PID = Pattern.compile("[0-9]{1,10}");
    private static final String DELETED = " (deleted)";

    private final Path devRoot;
    private final Path sysRoot;
    private final Path procRoot;

    /**
     * @param devRoot  the device tree ({@code /dev}): the partitions' nodes
     * @param sysRoot  sysfs ({@code /sys})
     * @param procRoot procfs ({@code /proc})
     */
    public DeviceUsers(Path devRoot, Path sysRoot, Path procRoot) {
        this.devRoot = devRoot;
        this.sysRoot = sysRoot;
        this.procRoot = procRoot;
    }

    /** What uses {@code device} (a node or a link to one) or a partition of it now, for a message; empty when nothing is seen. */
    public Optional<String> of(Path device) {
        Path node;
        try {
            node = device.toRealPath();
        } catch (IOException e) {
            throw new BackendException(BackendException.Kind.FAILED, "cannot tell whether " + device + " is in use: " + e);
        }
        String name = node.getFileName().toString();
        Path sys = sysRoot.resolve("block").resolve(name);
        List<Path> parts = new ArrayList<>(List.of(sys));
        parts.addAll(partitions(sys));
        return holders(parts).or(() -> mounts(parts)).or(() -> processes(node, parts));
    }

    /** The partitions' sysfs directories: those below the disk's with a {@code partition} attribute. */
    private static List<Path> partitions(Path sys) {
        List<Path> found = new ArrayList<>();
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(sys)) {
            for (Path entry : entries) {
                if (Files.exists(entry.resolve("partition"))) {
                    found.add(entry);
                }
            }
        } catch (IOException e) {
            // no sysfs entry: no partitions known
        }
        return found;
    }

    private static Optional<String> holders(List<Path> parts) {
        for (Path part : parts) {
            List<String> held = new ArrayList<>();
            try (DirectoryStream<Path> entries = Files.newDirectoryStream(part.resolve("holders"))) {
                entries.forEach(holder -> held.add(holder.getFileName().toString()));
            } catch (IOException e) {
                continue; // no holders directory: nothing stacked
            }
            if (!held.isEmpty()) {
                return Optional.of(part.getFileName() + " is held by " + held.stream().sorted().toList()
                        + " (a device stacked on it: device-mapper, md)");
            }
        }
        return Optional.empty();
    }

    private Optional<String> mounts(List<Path> parts) {
        Set<String> numbers = new HashSet<>();
        for (Path part : parts) {
            try {
                numbers.add(Files.readString(part.resolve("dev")).strip());
            } catch (IOException e) {
                // no device number: it cannot be found among the mounts
            }
        }
        List<String> lines;
        try {
            lines = Files.readAllLines(procRoot.resolve("self").resolve("mountinfo"));
        } catch (IOException e) {
            throw new BackendException(BackendException.Kind.FAILED, "cannot read the mounts (" + procRoot.resolve("self/mountinfo")
                    + "): " + e);
        }
        for (String line : lines) {
            String[] fields = line.split(" ");
            if (fields.length > 4 && numbers.contains(fields[2])) {
                return Optional.of("device " + fields[2] + " is mounted at " + Texts.printable(unescape(fields[4])));
            }
        }
        return Optional.empty();
    }

    private Optional<String> processes(Path node, List<Path> parts) {
        Set<String> names = new HashSet<>();
        Set<DeviceIdentity> identities = new HashSet<>();
        DeviceIdentity.of(node).ifPresent(identities::add);
        for (Path part : parts) {
            String name = part.getFileName().toString();
            names.add(name);
            DeviceIdentity.of(devRoot.resolve(name)).ifPresent(identities::add);
        }
        try (DirectoryStream<Path> pids = Files.newDirectoryStream(procRoot, entry -> PID.matcher(entry.getFileName().toString()).matches())) {
            for (Path pid : pids) {
                if (holds(pid.resolve("fd"), names, identities)) {
                    return Optional.of(node.getFileName() + " is open in process " + pid.getFileName() + " (" + command(pid) + ")");
                }
            }
        } catch (IOException e) {
            throw new BackendException(BackendException.Kind.FAILED, "cannot read the processes (" + procRoot + "): " + e);
        }
        return Optional.empty();
    }

    /** Whether one of the process's fds names one of the nodes and is that device; an fd directory it may not read holds none. */
    private static boolean holds(Path fds, Set<String> names, Set<DeviceIdentity> identities) {
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(fds)) {
            for (Path fd : entries) {
                if (names.contains(nodeName(fd)) && DeviceIdentity.of(fd).filter(identities::contains).isPresent()) {
                    return true;
                }
            }
        } catch (IOException | SecurityException e) {
            return false; // the process ended, or its fds are not ours to read
        }
        return false;
    }

    /** The last name of the path an fd link shows ("" when it shows none: a pipe, a socket, gone). */
    private static String nodeName(Path fd) {
        try {
            String target = Files.readSymbolicLink(fd).toString();
            if (target.endsWith(DELETED)) {
                target = target.substring(0, target.length() - DELETED.length());
            }
            return target.substring(target.lastIndexOf('/') + 1);
        } catch (IOException | UnsupportedOperationException e) {
            return "";
        }
    }

    private static String command(Path pid) {
        try {
            return Texts.printable(Files.readString(pid.resolve("comm")).strip());
        } catch (IOException e) {
            return "?";
        }
    }

    /** mountinfo's octal escapes ({@code \040} for a blank) undone. */
    private static String unescape(String field) {
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < field.length(); i++) {
            char c = field.charAt(i);
            if (c == '\\' && i + 3 < field.length() && field.substring(i + 1, i + 4).matches("[0-7]{3}")) {
                out.append((char) Integer.parseInt(field.substring(i + 1, i + 4), 8));
                i += 3;
            } else {
                out.append(c);
            }
        }
        return out.toString();
    }
}
