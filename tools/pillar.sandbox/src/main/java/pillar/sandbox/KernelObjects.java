package pillar.sandbox;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Stream;

/**
 * A snapshot of the kernel objects a CSI call changes, read from configfs, sysfs, procfs and files
 * (no command runs, so a snapshot is cheap even under emulation): nvmet subsystems, namespaces,
 * allowed hosts and port links; NVMe/TCP controllers and their block devices; mounts below the
 * kubelet directory; LVM logical volumes (device-mapper), ZFS zvols and mounted ZFS datasets; the
 * NFS server's exports with their clients (nfs-utils' etab, what {@code exportfs} gave the kernel)
 * and the NFSv4 clients nfsd holds state for. {@link #changesSince} says what a step did, one line per object.
 */
record KernelObjects(Map<String, String> objects) {
    private static final Path NVMET = Path.of("/sys/kernel/config/nvmet");
    private static final Path SYS_BLOCK = Path.of("/sys/block");
    private static final Path SYS_NVME = Path.of("/sys/class/nvme");
    private static final Path MOUNTINFO = Path.of("/proc/self/mountinfo");
    private static final Path ETAB = Path.of("/var/lib/nfs/etab");
    private static final Path NFSD_CLIENTS = Path.of("/proc/fs/nfsd/clients");

    /** Reads the objects now; mounts only below {@code kubeletDirs}. */
    static KernelObjects read(List<Path> kubeletDirs) {
        Map<String, String> objects = new TreeMap<>();
        nvmet(objects);
        initiator(objects);
        blockVolumes(objects);
        mounts(objects, kubeletDirs);
        nfsExports(objects, lines(ETAB));
        nfsdClients(objects);
        return new KernelObjects(objects);
    }

    /** "+ added", "- removed", "~ changed: old -> new", in key order. */
    List<String> changesSince(KernelObjects before) {
        List<String> changes = new ArrayList<>();
        TreeSet<String> keys = new TreeSet<>(before.objects.keySet());
        keys.addAll(objects.keySet());
        for (String key : keys) {
            String was = before.objects.get(key);
            String now = objects.get(key);
            if (was == null) {
                changes.add("+ " + key + (now.isEmpty() ? "" : "  " + now));
            } else if (now == null) {
                changes.add("- " + key);
            } else if (!Objects.equals(was, now)) {
                changes.add("~ " + key + "  " + was + " -> " + now);
            }
        }
        return changes;
    }

    /** The keys of objects that start with {@code prefix}. */
    List<String> keysStartingWith(String prefix) {
        return objects.keySet().stream().filter(k -> k.startsWith(prefix)).toList();
    }

    private static void nvmet(Map<String, String> objects) {
        for (Path subsystem : list(NVMET.resolve("subsystems"))) {
            String nqn = subsystem.getFileName().toString();
            objects.put("nvmet subsystem " + nqn, "");
            for (Path ns : list(subsystem.resolve("namespaces"))) {
                objects.put("nvmet subsystem " + nqn + " namespace " + ns.getFileName(), "device_path "
                        + read(ns.resolve("device_path")) + ", enable " + read(ns.resolve("enable")));
            }
            for (Path host : list(subsystem.resolve("allowed_hosts"))) {
                objects.put("nvmet subsystem " + nqn + " allowed host " + host.getFileName(), "");
            }
        }
        for (Path port : list(NVMET.resolve("ports"))) {
            String address = read(port.resolve("addr_trtype")) + " " + read(port.resolve("addr_traddr")) + ":"
                    + read(port.resolve("addr_trsvcid"));
            for (Path link : list(port.resolve("subsystems"))) {
                objects.put("nvmet port " + port.getFileName() + " (" + address + ") exports " + link.getFileName(), "");
            }
        }
    }

    private static void initiator(Map<String, String> objects) {
        for (Path controller : list(SYS_NVME)) {
            String transport = read(controller.resolve("transport"));
            if (!transport.equals("tcp")) {
                continue; // a local PCIe drive is not ours
            }
            objects.put("nvme controller " + controller.getFileName(), read(controller.resolve("subsysnqn")) + " "
                    + read(controller.resolve("state")) + ", host " + read(controller.resolve("hostnqn")));
        }
        for (Path block : list(SYS_BLOCK)) {
            String name = block.getFileName().toString();
            // the head of a multipath namespace has a /dev node; per-path nodes (nvme0c1n1) have none
            if (name.matches("nvme[0-9]+n[0-9]+")) {
                objects.put("/dev/" + name, mib(block) + ", " + read(block.resolve("device/subsysnqn")));
            }
        }
    }

    private static void blockVolumes(Map<String, String> objects) {
        for (Path block : list(SYS_BLOCK)) {
            String name = block.getFileName().toString();
            if (name.startsWith("dm-")) {
                String dm = read(block.resolve("dm/name"));
                // LVM writes VG-LV with '-' inside names doubled; pool internals (_tmeta, _tdata, -tpool) are noise
                if (dm.startsWith(StoragePools.VG + "-") && !dm.startsWith(StoragePools.VG + "-" + StoragePools.THIN_POOL)) {
                    String lv = dm.substring(StoragePools.VG.length() + 1).replace("--", "-");
                    objects.put("LV " + StoragePools.VG + "/" + lv, mib(block));
                }
            } else if (name.startsWith("zd") && !name.contains("p")) {
                objects.put("zvol /dev/" + name, mib(block));
            }
        }
    }

    private static void mounts(Map<String, String> objects, List<Path> kubeletDirs) {
        for (String line : lines(MOUNTINFO)) {
            String[] fields = line.split(" ");
            int dash = List.of(fields).indexOf("-");
            if (fields.length < 7 || dash < 0 || dash + 2 >= fields.length) {
                continue;
            }
            String point = fields[4].replace("\\040", " ");
            if (fields[dash + 1].equals("zfs")) {
                // a filesystem dataset (NFS); zvols have no mount, the pool's roots have mountpoint=none
                objects.put("ZFS dataset " + fields[dash + 2], "mounted at " + point);
                continue;
            }
            if (kubeletDirs.stream().noneMatch(k -> Path.of(point).startsWith(k))) {
                continue;
            }
            String key = "mount " + point;
            for (int n = 2; objects.containsKey(key); n++) {
                key = "mount " + point + " (#" + n + ")";
            }
            String mode = List.of(fields[5].split(",")).contains("ro") ? "ro" : "rw";
            objects.put(key, fields[dash + 1] + " " + fields[dash + 2] + " " + mode);
        }
    }

    /**
     * etab's lines: {@code PATH<tab>CLIENT(OPTIONS)}, one per export and client, as exportfs wrote
     * them and gave them to the kernel. Package-private for its test.
     */
    static void nfsExports(Map<String, String> objects, List<String> etab) {
        for (String line : etab) {
            String[] fields = line.strip().split("\\s+");
            int open = fields.length == 2 ? fields[1].indexOf('(') : -1;
            if (open <= 0 || !fields[1].endsWith(")")) {
                continue;
            }
            List<String> options = List.of(fields[1].substring(open + 1, fields[1].length() - 1).split(","));
            objects.put("NFS export " + fields[0] + " to " + fields[1].substring(0, open),
                    (options.contains("ro") ? "ro" : "rw") + options.stream().filter(o -> o.startsWith("fsid="))
                            .map(o -> ", " + o).findFirst().orElse(""));
        }
    }

    private static void nfsdClients(Map<String, String> objects) {
        for (Path client : list(NFSD_CLIENTS)) {
            String address = lines(client.resolve("info")).stream().filter(l -> l.startsWith("address:"))
                    .map(l -> l.substring("address:".length()).strip().replace("\"", "")).findFirst().orElse("?");
            objects.put("nfsd NFSv4 client " + address, "");
        }
    }

    private static List<String> lines(Path file) {
        try {
            return Files.readAllLines(file);
        } catch (IOException e) {
            return List.of();
        }
    }

    private static String mib(Path block) {
        String sectors = read(block.resolve("size"));
        return sectors.matches("[0-9]+") ? (Long.parseLong(sectors) * 512 >> 20) + " MiB" : "? MiB";
    }

    private static String read(Path file) {
        try {
            return Files.readString(file).strip();
        } catch (IOException e) {
            return "?";
        }
    }

    private static List<Path> list(Path dir) {
        if (!Files.isDirectory(dir)) {
            return List.of();
        }
        try (Stream<Path> entries = Files.list(dir)) {
            return entries.sorted().toList();
        } catch (IOException e) {
            return List.of();
        }
    }
}
