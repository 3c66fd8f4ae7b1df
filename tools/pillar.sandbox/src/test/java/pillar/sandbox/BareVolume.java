package pillar.sandbox;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import pillar.runtime.exec.Command;
import pillar.runtime.exec.CommandFailedException;
import pillar.runtime.exec.SystemProcessRunner;

/**
 * One volume made ready for a pod by the commands directly, as an operator's shell would, with no
 * pillar-csi in between: the bare side of {@link ManyVolumesVmBench}. Up: {@code lvcreate} of a thin
 * LV or {@code zfs create -V} of a zvol (as the agent passes them), the nvmet subsystem, namespace,
 * allowed host and port link in configfs ({@code mkdir}, {@code echo}, {@code ln -s}), the connect
 * through {@code /dev/nvme-fabrics}, {@code mkfs.ext4}, the mount and the pod's bind mount. Down: the
 * same undone in reverse, only as far as up got. Its subsystems listen on their own port
 * ({@value #PORT_ID}) and admit their own host, which {@link #openPort} and {@link #closePort} make
 * once for all volumes; they never share an entry with pillar-csi's.
 */
final class BareVolume implements ManyVolumesVmBench.Subject {
    static final String PORT_ID = "4421";
    static final String HOST = "nqn.2014-08.org.nvmexpress:uuid:bbbbbbbb-0000-4000-8000-00000000bare";
    private static final String NQN_PREFIX = "nqn.2024-06.io.bare:";
    private static final String NVMET = "/sys/kernel/config/nvmet";
    private static final Duration DEADLINE = Duration.ofMinutes(5);
    private static final SystemProcessRunner RUN = new SystemProcessRunner();

    private final Backend backend;
    private final String name;
    private final long bytes;
    private final Path dir;
    private final Zvols zvols;
    private Path device;
    private boolean exported;
    private String controller;
    private boolean staged;
    private boolean published;

    /** A volume {@code name} of {@code bytes} on {@code backend} (lvm-thin or zfs), mounted below {@code dir}. */
    BareVolume(Backend backend, String name, long bytes, Path dir, Zvols zvols) {
        this.backend = backend;
        this.name = name;
        this.bytes = bytes;
        this.dir = dir.resolve(name);
        this.zvols = zvols;
    }

    /** The port on 127.0.0.1 and the host entry the bare subsystems share. */
    static void openPort() {
        script("""
                mkdir "%1$s/hosts/$1" "%1$s/ports/$2"
                p=%1$s/ports/$2
                echo tcp > "$p/addr_trtype"; echo ipv4 > "$p/addr_adrfam"
                echo 127.0.0.1 > "$p/addr_traddr"; echo "$2" > "$p/addr_trsvcid"
                """.formatted(NVMET), HOST, PORT_ID);
    }

    static void closePort() {
        script("rmdir \"%1$s/ports/$2\" \"%1$s/hosts/$1\"".formatted(NVMET), HOST, PORT_ID);
    }

    String nqn() {
        return NQN_PREFIX + name;
    }

    /** Where the pod sees the filesystem. */
    @Override
    public Path target() {
        return dir.resolve("target");
    }

    /** Creates, exports, connects, formats, mounts and bind-mounts it for the pod. */
    @Override
    public void up() throws Exception {
        device = switch (backend) {
            case LVM_THIN -> {
                run("lvcreate", "-q", "-y", "--wipesignatures", "y", "-n", name, "-V", bytes + "b", "--thinpool",
                        StoragePools.THIN_POOL, StoragePools.VG);
                yield Path.of("/dev", StoragePools.VG, name);
            }
            case ZFS -> {
                run("zfs", "create", "-V", Long.toString(bytes), "-b", "16384", "-o", "volmode=dev", dataset());
                yield zvols.await(dataset());
            }
            case LVM -> throw new IllegalArgumentException("lvm-thin or zfs only");
        };
        script("""
                s=%1$s/subsystems/$1
                mkdir "$s"
                echo 0 > "$s/attr_allow_any_host"
                mkdir "$s/namespaces/1"
                echo -n "$2" > "$s/namespaces/1/device_path"
                # a zvol zvol_id has just named may still refuse nvmet's open (ENOENT, 2 of 50 at 10 in
                # flight in the VM): tried again for up to 2 s
                for i in 1 2 3 4 5 6 7 8 9 10; do
                    echo 1 > "$s/namespaces/1/enable" 2>/dev/null && break
                    [ "$i" -lt 10 ] || echo 1 > "$s/namespaces/1/enable"
                    sleep 0.2
                done
                ln -s "%1$s/hosts/$3" "$s/allowed_hosts/$3"
                ln -s "$s" "%1$s/ports/$4/subsystems/$1"
                """.formatted(NVMET), nqn(), device.toString(), HOST, PORT_ID);
        exported = true;
        String[] connected = script("""
                exec 3<>/dev/nvme-fabrics
                echo "nqn=$1,transport=tcp,traddr=127.0.0.1,trsvcid=$2,hostnqn=$3,ctrl_loss_tmo=30,reconnect_delay=2" >&3
                read -r reply <&3
                exec 3>&-
                c=${reply#instance=}; c=${c%%,*}
                exec 9<> <(:)
                while :; do
                    for b in /sys/block/nvme*n*; do
                        read -r nqn < "$b/device/subsysnqn" || continue
                        if [ "$nqn" = "$1" ] && [ -b "/dev/${b##*/}" ]; then echo "$c /dev/${b##*/}"; exit 0; fi
                    done
                    read -t 0.01 -u 9 || true
                done
                """, nqn(), PORT_ID, HOST).strip().split(" ");
        controller = connected[0];
        Path nvme = Path.of(connected[1]);
        run("mkfs.ext4", "-q", nvme.toString());
        Path staging = Files.createDirectories(dir.resolve("staging"));
        run("mount", "-t", "ext4", nvme.toString(), staging.toString());
        staged = true;
        Files.createDirectories(target());
        run("mount", "--bind", staging.toString(), target().toString());
        published = true;
    }

    /** Undoes what {@link #up} did, in reverse: unmounts, disconnects, unexports, destroys. */
    @Override
    public void down() throws InterruptedException {
        if (published) {
            run("umount", target().toString());
            published = false;
        }
        if (staged) {
            run("umount", dir.resolve("staging").toString());
            staged = false;
        }
        if (controller != null) {
            script("echo 1 > /sys/class/nvme/nvme$1/delete_controller", controller);
            controller = null;
        }
        if (exported) {
            script("""
                    s=%1$s/subsystems/$1
                    rm "%1$s/ports/$3/subsystems/$1"
                    echo 0 > "$s/namespaces/1/enable"
                    rmdir "$s/namespaces/1"
                    rm "$s/allowed_hosts/$2"
                    rmdir "$s"
                    """.formatted(NVMET), nqn(), HOST, PORT_ID);
            exported = false;
        }
        if (device != null) {
            if (backend == Backend.ZFS) {
                destroyZvol();
            } else {
                run("lvremove", "-q", "-f", StoragePools.VG + "/" + name);
            }
            device = null;
        }
    }

    /** {@code zfs destroy}, again while ZFS still calls the zvol busy (up to 5 s; the kernel closes it asynchronously). */
    private void destroyZvol() throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
        while (true) {
            try {
                run("zfs", "destroy", dataset());
                return;
            } catch (CommandFailedException e) {
                if (!e.stderr().contains("busy") || System.nanoTime() > deadline) {
                    throw e;
                }
                Thread.sleep(100);
            }
        }
    }

    private String dataset() {
        return StoragePools.ZPOOL + "/" + StoragePools.ZFS_PARENT + "/" + name;
    }

    private static String run(String... argv) {
        return RUN.run(new Command(List.of(argv), DEADLINE)).stdout();
    }

    /** A bash script with positional arguments ($1...), {@code set -eu}. */
    private static String script(String body, String... args) {
        List<String> argv = new ArrayList<>(List.of("bash", "-c", "set -eu\nshopt -s nullglob\n" + body, "bare"));
        argv.addAll(List.of(args));
        return RUN.run(new Command(argv, DEADLINE)).stdout();
    }

    /**
     * The zvols' devices without udev: each new {@code /dev/zdN} asked once for its dataset with
     * {@code zvol_id} (the program udev's rule runs), the answer kept while nothing is destroyed.
     * One per up phase: zd numbers are reused once zvols go.
     */
    static final class Zvols {
        private final Map<String, String> datasets = new ConcurrentHashMap<>();

        Path await(String dataset) throws InterruptedException {
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (System.nanoTime() < deadline) {
                for (Path zd : KernelCleanup.list(Path.of("/sys/block"))) {
                    String zdName = zd.getFileName().toString();
                    Path node = Path.of("/dev", zdName);
                    if (zdName.matches("zd[0-9]+") && Files.exists(node)
                            && dataset.equals(datasets.computeIfAbsent(zdName, k -> datasetOf(node)))) {
                        return node;
                    }
                }
                Thread.sleep(20);
            }
            throw new IllegalStateException("no /dev/zdN for " + dataset + " after 60 s");
        }

        /** zvol_id's answer, or null (not kept) while the device is not ready to say. */
        private static String datasetOf(Path node) {
            try {
                String id = run("/lib/udev/zvol_id", node.toString()).strip();
                return id.isEmpty() ? null : id;
            } catch (CommandFailedException e) {
                return null;
            }
        }
    }
}
