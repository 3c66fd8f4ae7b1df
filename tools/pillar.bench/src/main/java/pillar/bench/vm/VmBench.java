package pillar.bench.vm;

import java.io.IOException;
import java.io.PrintStream;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Supplier;

import pillar.api.value.LifecycleUid;
import pillar.bench.Args;
import pillar.bench.Report;

/**
 * Group 2 of dev/bench, run inside the qemu VM (dev/vm/run): the real-kernel lifecycle of a volume
 * (LVM thin, nvmet over NVMe/TCP on loopback, ext4), phase by phase, done by pillar-csi and by the
 * bare commands in turn, in the same run, so that both see the same kernel and the same load.
 *
 * <p>{@code VmBench --out=FILE [--reps=N] [--quick]}: a volume group on a loop device in the guest's tmpfs,
 * pillar-csi's agent and node in this JVM ({@link Pillar}), then N repetitions of the phases; the
 * median of each side and their ratio go to FILE (Markdown), then the cost of zeroing a linear LV on
 * delete ({@link ZeroingCost}). {@code --zeroing-only}: that measurement alone. Fails unless PILLAR_KERNEL_VM=1.
 */
public final class VmBench {
    static final String VG = "benchvg";
    static final String POOL = "pool0";
    static final long SIZE = 256L << 20;
    static final long GROWN = 512L << 20;

    private VmBench() {
    }

    public static void main(String[] arguments) throws Exception {
        Args args = Args.parse(arguments);
        if (args.flag("train")) {
            train();
            return;
        }
        if (!"1".equals(System.getenv("PILLAR_KERNEL_VM")) || !Files.isDirectory(Path.of("/sys/kernel/config/nvmet"))) {
            System.err.println("VmBench runs only in the qemu VM of dev/vm/run (PILLAR_KERNEL_VM=1, nvmet loaded); use dev/bench");
            System.exit(2);
        }
        int reps = args.integer("reps", 3);
        boolean quick = args.flag("quick");
        boolean zeroingOnly = args.flag("zeroing-only");
        Path work = Files.createDirectories(Path.of("/tmp/pillar-vmbench"));
        Path image = work.resolve("pv.img");
        try (RandomAccessFile file = new RandomAccessFile(image.toFile(), "rw")) {
            file.setLength(4L << 30);
        }
        String loop = Bare.run("losetup", "--find", "--show", image.toString()).strip();
        Report report = new Report(new PrintStream(System.out, true));
        try {
            Bare.run("pvcreate", "-q", loop);
            Bare.run("vgcreate", "-q", VG, loop);
            Bare.run("lvcreate", "-q", "--type", "thin-pool", "-L", "3g", "-n", POOL, VG);
            if (zeroingOnly) {
                report.heading("2. The real-kernel lifecycle in the VM (`dev/bench --group 2`): zeroing only");
                ZeroingCost.measure(report, VG, reps);
                return;
            }
            Phases phases = declare();
            try (Pillar pillar = new Pillar(work, Path.of("/sys/kernel/config"), VG, POOL)) {
                Bare bare = new Bare(VG, POOL);
                if (!quick) {
                    System.out.println("[vmbench] warm-up repetition (not counted)");
                    new Repetition(pillar, bare, declare(), work, 0, true).run();
                }
                for (int r = 1; r <= reps; r++) {
                    System.out.println("[vmbench] repetition " + r + " of " + reps);
                    new Repetition(pillar, bare, phases, work, r, !quick).run();
                }
            }
            report.heading("2. The real-kernel lifecycle in the VM (`dev/bench --group 2`)");
            report.text("Debian's kernel " + System.getProperty("os.version") + " in qemu (TCG, 2 vCPUs, dev/vm/run): LVM thin on a"
                    + " loop device in the guest's tmpfs, nvmet over NVMe/TCP on 127.0.0.1, ext4, " + (SIZE >> 20) + " MiB grown to "
                    + (GROWN >> 20) + " MiB. pillar-csi's agent and node run in one JVM (`" + String.join(" ",
                    java.lang.management.ManagementFactory.getRuntimeMXBean().getInputArguments()) + "`), the agent called over"
                    + " gRPC as the controller calls it; the node's phases are the steps of NodeStageVolume and NodeUnstageVolume"
                    + " (its initiator, sysfs, tools and mounter), and the whole calls are timed over its CSI socket too. Each phase"
                    + " alternates: pillar-csi, then the bare commands; " + (quick ? "QUICK: no warm-up (pillar-csi's first calls"
                    + " include the JIT's warm-up) and no whole node calls, " : "a warm-up repetition, then ") + reps
                    + " counted; medians.");
            phases.report(report, 1.15);
            ZeroingCost.measure(report, VG, reps);
        } finally {
            Bare.run("vgremove", "-q", "-f", VG);
            Bare.run("pvremove", "-q", loop);
            Bare.run("losetup", "--detach", loop);
            Files.writeString(args.path("out"), report.markdown());
        }
    }

    /**
     * The training run of dev/bench's AOT cache (on the host: no kernel needed): the agent and the node
     * started on stand-in directories and called once, so that the classes the VM run loads are in the
     * cache; the VM's slow start (TCG) is mostly class loading.
     */
    private static void train() throws IOException {
        Path work = Files.createTempDirectory("pillar-vmbench-train");
        for (String d : new String[] {"hosts", "ports", "subsystems"}) {
            Files.createDirectories(work.resolve("configfs/nvmet").resolve(d));
        }
        try (Pillar pillar = new Pillar(work, work.resolve("configfs"), VG, POOL)) {
            pillar.touch();
            Bare.run("true");
            declare().report(new Report(new PrintStream(java.io.OutputStream.nullOutputStream())), 1.15);
        }
        System.out.println("[vmbench] training run done");
    }

    private static Phases declare() {
        Phases p = new Phases();
        p.declare("create", "agent CreateVolume (lvcreate -T, wait for the device)", "lvcreate -V -T");
        p.declare("export", "agent ExportVolume (configfs subsystem, namespace, port, link; read back; record)",
                "bash: mkdir, echo, ln -s in configfs");
        p.declare("publish", "agent AllowInitiator (host entry, link; record)", "bash: mkdir host, ln -s");
        p.declare("connect", "node initiator: /dev/nvme-fabrics, wait for the head device in sysfs",
                "bash: write /dev/nvme-fabrics, poll /sys/block (10 ms)");
        p.declare("mkfs", "node: blkid -p (blank?), mkfs.ext4 -q", "mkfs.ext4 -q");
        p.declare("mount", "node: mount(2) through JNA", "mount -t ext4");
        p.declare("expand", "agent ExpandVolume (lvextend, revalidate_size; record)", "lvextend, bash: echo 1 > revalidate_size");
        p.declare("unmount", "node: umount2(2) through JNA", "umount");
        p.declare("disconnect", "node initiator: delete_controller", "bash: echo 1 > delete_controller");
        p.declare("unexport", "agent UnexportVolume (configfs teardown; record)", "bash: rm, echo 0, rmdir in configfs");
        p.declare("delete", "agent DeleteVolume (lvremove; tombstone mark)", "lvremove -f");
        p.declare("NodeStageVolume", "the whole CSI call over the node's socket (connect, mkfs, mount, stage record)",
                "connect + mkfs + mount above");
        p.declare("NodeExpandVolume", "the whole CSI call (rescan, wait for the size, resize2fs)",
                "bash: echo 1 > rescan_controller, wait for the size, resize2fs");
        p.declare("NodeUnstageVolume", "the whole CSI call (unmount, disconnect, record removed)", "unmount + disconnect above");
        return p;
    }

    /** Times one step. */
    static <T> T timed(Map<String, Long> into, String phase, Supplier<T> step) {
        long start = System.nanoTime();
        T result = step.get();
        into.put(phase, System.nanoTime() - start);
        return result;
    }

    static Map<String, Long> times() {
        return new LinkedHashMap<>();
    }

    static Path directory(Path dir) {
        try {
            return Files.createDirectories(dir);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
