package pillar.sandbox;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import pillar.runtime.exec.Command;
import pillar.runtime.exec.ProcessRunner;
import pillar.runtime.exec.SystemProcessRunner;

/**
 * The storage node's pools, created for the sandbox on sparse files behind loop devices: an LVM
 * volume group {@value #VG} with a thin pool {@value #THIN_POOL} (linear volumes take the rest of
 * the group), and, when asked, a ZFS pool {@value #ZPOOL} with the parent dataset {@value #ZFS_PARENT}.
 * The files live in memory in the VM (tmpfs): only what is written takes room. Closing destroys
 * both pools and detaches the loops.
 */
final class StoragePools implements AutoCloseable {
    static final String VG = "sandbox";
    static final String THIN_POOL = "pool0";
    /** How many times its data size the sandbox's thin pool may promise (the agent's default is 1). */
    static final int THIN_OVER_PROVISIONING = 4;
    static final String ZPOOL = "tank";
    static final String ZFS_PARENT = "k8s";
    private static final long GIB = 1L << 30;
    private static final Duration DEADLINE = Duration.ofMinutes(3);

    private final ProcessRunner runner = new SystemProcessRunner();
    private final Path dir;
    private final List<String> created = new ArrayList<>();
    private Path lvmLoop;
    private Path zfsLoop;

    private StoragePools(Path dir) {
        this.dir = dir;
    }

    /**
     * Creates the volume group and its thin pool, and the ZFS pool when {@code zfs} is true (the
     * VM must have loaded the zfs module: {@code PILLAR_VM_ZFS=1}).
     */
    static StoragePools create(Path dir, boolean zfs) {
        return create(dir, true, zfs);
    }

    /** Only the ZFS pool and its parent dataset (the NFS tests: no LVM to make, nor for the agent to check at start). */
    static StoragePools zfsOnly(Path dir) {
        return create(dir, false, true);
    }

    private static StoragePools create(Path dir, boolean lvm, boolean zfs) {
        StoragePools pools = new StoragePools(dir);
        try {
            Files.createDirectories(dir);
            if (lvm) {
                pools.makeLvm();
            }
            if (zfs) {
                pools.makeZfs();
            }
            return pools;
        } catch (IOException | RuntimeException e) {
            pools.close();
            throw e instanceof IOException io ? new UncheckedIOException(io) : (RuntimeException) e;
        }
    }

    private void makeLvm() throws IOException {
        lvmLoop = loop("lvm.img", 3 * GIB);
        run("pvcreate", "-q", lvmLoop.toString());
        run("vgcreate", "-q", VG, lvmLoop.toString());
        created.add("LVM volume group " + VG + " on " + lvmLoop + " (3 GiB, sparse)");
        run("lvcreate", "-q", "--type", "thin-pool", "-L", "1536m", "-n", THIN_POOL, VG);
        created.add("LVM thin pool " + VG + "/" + THIN_POOL + " (1.5 GiB)");
    }

    private void makeZfs() throws IOException {
        if (!Files.isDirectory(Path.of("/sys/module/zfs"))) {
            throw new IllegalStateException("the zfs kernel module is not loaded: run the VM with PILLAR_VM_ZFS=1 "
                    + "(dev/sandbox does when the VM's kernel has zfs; dev/vm/setup installs it)");
        }
        zfsLoop = loop("zfs.img", 2 * GIB);
        run("zpool", "create", "-f", "-m", "none", "-o", "cachefile=none", ZPOOL, zfsLoop.toString());
        run("zfs", "create", "-o", "mountpoint=none", ZPOOL + "/" + ZFS_PARENT);
        created.add("ZFS pool " + ZPOOL + " on " + zfsLoop + " (2 GiB, sparse), dataset " + ZPOOL + "/" + ZFS_PARENT);
    }

    /** What was created, one line each, for the output. */
    List<String> created() {
        return List.copyOf(created);
    }

    boolean hasZfs() {
        return zfsLoop != null;
    }

    /** The agent's {@code backends} entries (YAML flow maps) for what exists. */
    List<String> agentBackends() {
        List<String> backends = new ArrayList<>();
        if (lvmLoop != null) {
            // the snapshot scenario keeps a volume, its snapshot, a restore and a clone of 640 MiB each on the
            // 1536 MiB pool, and each counts at its full size: the sandbox overcommits 4 times, on purpose
            backends.add("{name: " + Backend.LVM_THIN.agentBackend() + ", type: lvm-thin, volume-group: " + VG + ", thin-pool: "
                    + THIN_POOL + ", over-provisioning-ratio: " + THIN_OVER_PROVISIONING + "}");
            backends.add("{name: " + Backend.LVM.agentBackend() + ", type: lvm, volume-group: " + VG + "}");
        }
        if (hasZfs()) {
            backends.add("{name: " + Backend.ZFS.agentBackend() + ", type: zfs, pool: " + ZPOOL + ", parent-dataset: "
                    + ZFS_PARENT + "}");
        }
        return backends;
    }

    private Path loop(String name, long bytes) throws IOException {
        Path file = dir.resolve(name);
        try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "rw")) {
            f.setLength(bytes);
        }
        return Path.of(run("losetup", "--find", "--show", file.toString()).strip());
    }

    private String run(String... argv) {
        return runner.run(new Command(List.of(argv), DEADLINE)).stdout();
    }

    /** Destroys the pools (whatever volumes are left in them) and detaches the loops; says what failed. */
    @Override
    public void close() {
        List<String> problems = new ArrayList<>();
        if (zfsLoop != null) {
            attempt(problems, "zpool", "destroy", "-f", ZPOOL);
            attempt(problems, "losetup", "--detach", zfsLoop.toString());
        }
        if (lvmLoop != null) {
            attempt(problems, "vgremove", "-q", "-f", VG);
            attempt(problems, "pvremove", "-q", lvmLoop.toString());
            attempt(problems, "losetup", "--detach", lvmLoop.toString());
        }
        for (String image : List.of("lvm.img", "zfs.img")) {
            try {
                Files.deleteIfExists(dir.resolve(image));
            } catch (IOException e) {
                problems.add(e.toString());
            }
        }
        if (!problems.isEmpty()) {
            throw new IllegalStateException("the storage pools were not all removed: " + problems);
        }
    }

    private void attempt(List<String> problems, String... argv) {
        try {
            run(argv);
        } catch (RuntimeException e) {
            problems.add(e.getMessage());
        }
    }
}
