package pillar.runtime.server;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;

/**
 * Who listens on a TCP port, in words, for the message of a workload that cannot bind it: the
 * processes whose open files hold the listening socket ({@code /proc/net/tcp}, {@code tcp6} and each
 * process's {@code fd} directory). A holder this process cannot see (another PID namespace, or an
 * earlier instance still exiting) is said so; nothing here ever fails.
 */
final class PortHolder {
    /** The state {@code 0A} in {@code /proc/net/tcp}: LISTEN. */
    private static final String LISTEN = "0A";

    private final Path proc;

    PortHolder(Path proc) {
        this.proc = proc;
    }

    /** The host's {@code /proc}. */
    static PortHolder system() {
        return new PortHolder(Path.of("/proc"));
    }

    /** A sentence naming who listens on {@code port}, e.g. {@code "held by pid 41 (java -m pillar.agent/…)"}. */
    String describe(int port) {
        Set<String> inodes = listeningInodes(port);
        if (inodes.isEmpty()) {
            return "no process listens on it now (a socket of an exiting process, or a bind on another address)";
        }
        List<String> holders = holders(inodes);
        return holders.isEmpty() ? "a listening socket this process cannot attribute (a process in another PID namespace,"
                + " or an earlier instance still exiting)" : "held by " + String.join(", ", holders);
    }

    /** The inodes of the sockets listening on {@code port}, any address, IPv4 and IPv6. */
    Set<String> listeningInodes(int port) {
        Set<String> inodes = new TreeSet<>();
        String hexPort = String.format(Locale.ROOT, "%04X", port);
        for (String table : List.of("net/tcp", "net/tcp6")) {
            for (String line : lines(proc.resolve(table))) {
                // sl local_address rem_address st tx_queue:rx_queue tr:tm->when retrnsmt uid timeout inode
                String[] fields = line.strip().split("\\s+");
                if (fields.length > 9 && fields[1].endsWith(":" + hexPort) && fields[3].equals(LISTEN)) {
                    inodes.add(fields[9]);
                }
            }
        }
        return inodes;
    }

    private List<String> holders(Set<String> inodes) {
        List<String> holders = new ArrayList<>();
        try (Stream<Path> pids = Files.list(proc)) {
            for (Path pid : (Iterable<Path>) pids.filter(p -> p.getFileName().toString().matches("[0-9]+"))::iterator) {
                if (holds(pid, inodes)) {
                    holders.add("pid " + pid.getFileName() + " (" + commandLine(pid) + ")");
                }
            }
        } catch (IOException e) {
            // nothing to name
        }
        return holders;
    }

    private static boolean holds(Path pid, Set<String> inodes) {
        try (Stream<Path> fds = Files.list(pid.resolve("fd"))) {
            return fds.anyMatch(fd -> {
                try {
                    String link = Files.readSymbolicLink(fd).toString();
                    return link.startsWith("socket:[") && inodes.contains(link.substring(8, link.length() - 1));
                } catch (IOException | UnsupportedOperationException e) {
                    return false;
                }
            });
        } catch (IOException e) {
            return false;
        }
    }

    private static String commandLine(Path pid) {
        try {
            String text = new String(Files.readAllBytes(pid.resolve("cmdline")), StandardCharsets.UTF_8).replaceAll("[\\x00\\s]+", " ").strip();
            return text.length() > 160 ? text.substring(0, 160) + "…" : text;
        } catch (IOException e) {
            return "command line unreadable";
        }
    }

    private static List<String> lines(Path file) {
        try {
            return Files.readAllLines(file);
        } catch (IOException e) {
            return List.of();
        }
    }
}
