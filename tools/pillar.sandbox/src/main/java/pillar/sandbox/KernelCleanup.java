package pillar.sandbox;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

import pillar.runtime.exec.Command;
import pillar.runtime.exec.SystemProcessRunner;

/**
 * Removes what pillar-csi may have left in the kernel when a bed goes away: mounts below the kubelet
 * directories, NVMe/TCP controllers of pillar subsystems, and the pillar subsystems of the nvmet
 * target (in the order the kernel accepts: port links, namespaces, allowed hosts, subsystem; then
 * unused ports and hosts). After a lifecycle that ended with DeleteVolume it should find nothing:
 * what it removes is reported, and the suite treats a non-empty report as a failure.
 */
final class KernelCleanup {
    static final String PILLAR_NQN_PREFIX = "nqn.2024-06.io.pillar-csi:";
    private static final Path NVMET = Path.of("/sys/kernel/config/nvmet");
    private static final Path SYS_NVME = Path.of("/sys/class/nvme");

    private KernelCleanup() {
    }

    /** Cleans up; returns one line per object it had to remove, and per object it could not. */
    static List<String> run(List<Path> kubeletDirs) {
        List<String> removed = new ArrayList<>();
        KernelObjects now = KernelObjects.read(kubeletDirs);
        // deepest mount first: a pod's bind mount before the staging mount below it
        List<String> mounts = new ArrayList<>(now.keysStartingWith("mount "));
        mounts.sort(Comparator.comparingInt(String::length).reversed());
        for (String mount : mounts) {
            String point = mount.substring("mount ".length()).replaceFirst(" \\(#[0-9]+\\)$", "");
            attempt(removed, "unmounted " + point, () -> new SystemProcessRunner()
                    .run(Command.of(Duration.ofMinutes(1), "umount", point)));
        }
        for (Path controller : list(SYS_NVME)) {
            if (read(controller.resolve("subsysnqn")).startsWith(PILLAR_NQN_PREFIX)) {
                attempt(removed, "disconnected " + controller.getFileName(), () ->
                        Files.writeString(controller.resolve("delete_controller"), "1", StandardOpenOption.WRITE));
            }
        }
        removed.addAll(wipeTarget());
        return removed;
    }

    /**
     * Removes pillar's whole nvmet target configuration, as a reboot of the storage node does, and
     * leaves initiators and mounts alone (connected hosts lose their controllers' connection and keep
     * trying to reconnect). Returns what it removed.
     */
    static List<String> wipeTarget() {
        List<String> removed = new ArrayList<>();
        for (Path subsystem : list(NVMET.resolve("subsystems"))) {
            String nqn = subsystem.getFileName().toString();
            if (nqn.startsWith(PILLAR_NQN_PREFIX)) {
                attempt(removed, "removed nvmet subsystem " + nqn, () -> removeSubsystem(subsystem, nqn));
            }
        }
        for (Path port : list(NVMET.resolve("ports"))) {
            if (list(port.resolve("subsystems")).isEmpty()) {
                attempt(removed, "removed unused nvmet port " + port.getFileName(), () -> Files.delete(port));
            }
        }
        for (Path host : list(NVMET.resolve("hosts"))) {
            attempt(removed, "removed nvmet host " + host.getFileName(), () -> Files.delete(host));
        }
        return removed;
    }

    /**
     * Removes one subsystem from the target behind the agent's back (its port links, namespaces and
     * allowed hosts first, as the kernel requires), and every port left linking nothing, as a wiped
     * target would be without it. The agent's record is kept.
     */
    static void wipeSubsystem(String nqn) throws IOException {
        removeSubsystem(NVMET.resolve("subsystems").resolve(nqn), nqn);
        for (Path port : list(NVMET.resolve("ports"))) {
            if (list(port.resolve("subsystems")).isEmpty()) {
                Files.delete(port);
            }
        }
    }

    private static void removeSubsystem(Path subsystem, String nqn) throws IOException {
        for (Path port : list(NVMET.resolve("ports"))) {
            Files.deleteIfExists(port.resolve("subsystems").resolve(nqn));
        }
        for (Path ns : list(subsystem.resolve("namespaces"))) {
            Files.writeString(ns.resolve("enable"), "0", StandardOpenOption.WRITE);
            Files.delete(ns);
        }
        for (Path host : list(subsystem.resolve("allowed_hosts"))) {
            Files.delete(host);
        }
        Files.delete(subsystem);
    }

    private interface Action {
        void run() throws Exception;
    }

    private static void attempt(List<String> report, String what, Action action) {
        try {
            action.run();
            report.add(what);
        } catch (Exception e) {
            report.add("FAILED: " + what + ": " + e);
        }
    }

    /** A sysfs or configfs attribute, stripped; "" when it cannot be read. */
    static String read(Path file) {
        try {
            return Files.readString(file).strip();
        } catch (IOException e) {
            return "";
        }
    }

    /** The entries of a directory; none when it is missing or unreadable. */
    static List<Path> list(Path dir) {
        if (!Files.isDirectory(dir)) {
            return List.of();
        }
        try (Stream<Path> entries = Files.list(dir)) {
            return entries.toList();
        } catch (IOException e) {
            return List.of();
        }
    }
}
