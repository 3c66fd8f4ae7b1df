package pillar.bench.vm;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import pillar.runtime.exec.Command;
import pillar.runtime.exec.SystemProcessRunner;

/**
 * The same phases done by hand, as an operator's shell would: LVM's tools, {@code mkdir}, {@code echo}
 * and {@code ln -s} into nvmet's configfs, a write to {@code /dev/nvme-fabrics}, {@code mkfs},
 * {@code mount}. Each phase is one process (a tool, or one {@code bash -c} script for configfs).
 * The bare subsystem listens on its own port (127.0.0.1:{@value #TRSVCID}) and admits its own host
 * NQN, so that it never shares a port or a host entry with pillar-csi's.
 */
final class Bare {
    static final int TRSVCID = 4421;
    static final String PORT_ID = "4421";
    static final String HOST = "nqn.2014-08.org.nvmexpress:uuid:bbbbbbbb-0000-4000-8000-00000000bare";
    private static final String NVMET = "/sys/kernel/config/nvmet";
    private static final Duration DEADLINE = Duration.ofMinutes(5);
    private static final SystemProcessRunner RUN = new SystemProcessRunner();

    private final String vg;
    private final String pool;

    Bare(String vg, String pool) {
        this.vg = vg;
        this.pool = pool;
    }

    static String run(String... argv) {
        return RUN.run(new Command(List.of(argv), DEADLINE)).stdout();
    }

    /** A bash script with positional arguments ($1...), {@code set -eu}. */
    static String script(String body, String... args) {
        List<String> argv = new ArrayList<>(List.of("bash", "-c", "set -eu\nshopt -s nullglob\n" + body, "bare"));
        argv.addAll(List.of(args));
        return RUN.run(new Command(argv, DEADLINE)).stdout();
    }

    void create(String lv, long bytes) {
        run("lvcreate", "-q", "-V", bytes + "b", "-T", vg + "/" + pool, "-n", lv);
    }

    Path device(String lv) {
        return Path.of("/dev", vg, lv);
    }

    void export(String nqn, Path device) {
        script("""
                s=%1$s/subsystems/$1 p=%1$s/ports/%2$s
                mkdir "$s"
                echo 0 > "$s/attr_allow_any_host"
                mkdir "$s/namespaces/1"
                echo -n "$2" > "$s/namespaces/1/device_path"
                echo 1 > "$s/namespaces/1/enable"
                if [ ! -d "$p" ]; then
                    mkdir "$p"
                    echo tcp > "$p/addr_trtype"; echo ipv4 > "$p/addr_adrfam"
                    echo 127.0.0.1 > "$p/addr_traddr"; echo %3$d > "$p/addr_trsvcid"
                fi
                ln -s "$s" "$p/subsystems/$1"
                """.formatted(NVMET, PORT_ID, TRSVCID), nqn, device.toString());
    }

    void publish(String nqn) {
        script("""
                h=%1$s/hosts/$2
                [ -d "$h" ] || mkdir "$h"
                ln -s "$h" "%1$s/subsystems/$1/allowed_hosts/$2"
                """.formatted(NVMET), nqn, HOST);
    }

    /** Connects and waits for the namespace's block device; returns "CONTROLLER DEVICE", e.g. "3 /dev/nvme2n1". */
    String[] connect(String nqn) {
        return script("""
                exec 3<>/dev/nvme-fabrics
                echo "nqn=$1,transport=tcp,traddr=127.0.0.1,trsvcid=%d,hostnqn=$2,ctrl_loss_tmo=30,reconnect_delay=2" >&3
                read -r reply <&3
                exec 3>&-
                c=${reply#instance=}; c=${c%%%%,*}
                exec 9<> <(:)
                while :; do
                    for b in /sys/block/nvme*n1; do
                        read -r nqn < "$b/device/subsysnqn" || continue
                        if [ "$nqn" = "$1" ] && [ -b "/dev/${b##*/}" ]; then echo "$c /dev/${b##*/}"; exit 0; fi
                    done
                    read -t 0.01 -u 9 || true
                done
                """.formatted(TRSVCID), nqn, HOST).strip().split(" ");
    }

    void mkfs(Path device) {
        run("mkfs.ext4", "-q", device.toString());
    }

    void mount(Path device, Path dir) {
        run("mount", "-t", "ext4", device.toString(), dir.toString());
    }

    void bind(Path source, Path target) {
        run("mount", "--bind", source.toString(), target.toString());
    }

    void umount(Path dir) {
        run("umount", dir.toString());
    }

    /** Grows the LV and tells nvmet; the host's size and the filesystem are the caller's next steps. */
    void growTarget(String lv, String nqn, long bytes) {
        run("lvextend", "-q", "-L", bytes + "b", vg + "/" + lv);
        script("echo 1 > %s/subsystems/$1/namespaces/1/revalidate_size".formatted(NVMET), nqn);
    }

    void resize(Path device) {
        run("resize2fs", device.toString());
    }

    void disconnect(String controller) {
        script("echo 1 > /sys/class/nvme/nvme$1/delete_controller", controller);
    }

    void unexport(String nqn) {
        script("""
                s=%1$s/subsystems/$1 p=%1$s/ports/%2$s h=%1$s/hosts/$2
                rm "$p/subsystems/$1"
                echo 0 > "$s/namespaces/1/enable"
                rmdir "$s/namespaces/1"
                rm -f "$s/allowed_hosts/$2"
                rmdir "$s"
                left=("$p"/subsystems/*); [ ${#left[@]} -gt 0 ] || rmdir "$p"
                used=(%1$s/subsystems/*/allowed_hosts/$2); [ ${#used[@]} -gt 0 ] || rmdir "$h"
                """.formatted(NVMET, PORT_ID), nqn, HOST);
    }

    void delete(String lv) {
        run("lvremove", "-q", "-f", vg + "/" + lv);
    }
}
