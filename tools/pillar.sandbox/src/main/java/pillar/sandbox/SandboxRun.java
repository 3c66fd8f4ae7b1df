package pillar.sandbox;

import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.storage.StorageClass;

/**
 * The sandbox inside the VM ({@code dev/sandbox} boots the VM and runs this): starts the bed with
 * the quickstart objects (and, over NFS, examples/sandbox/nfs.yaml's, the NFS server and two NFS nodes),
 * shows the generated StorageClass, plays one volume's lifecycle (over NFS: one ReadWriteMany
 * volume on two nodes, {@link NfsScenario}), runs the user's command if any, stays up with
 * {@code --keep}, and takes everything down. Exit status 0 only when every step passed (and the
 * user's command, if any, exited 0).
 */
final class SandboxRun {
    private static final long MIB = 1 << 20;

    /** What the sandbox plays once everything is up: one volume's whole life, or its snapshots and clones. */
    enum Scenario {
        LIFECYCLE, SNAPSHOT;

        static Scenario of(String name) {
            return switch (name) {
                case "lifecycle" -> LIFECYCLE;
                case "snapshot" -> SNAPSHOT;
                default -> throw new IllegalArgumentException("--scenario must be lifecycle or snapshot, is '" + name + "'");
            };
        }
    }

    /** The protocol the played volume is reached over: NVMe/TCP (a block volume) or NFS (a ZFS dataset, ReadWriteMany). */
    enum Protocol {
        NVME_TCP, NFS;

        static Protocol of(String name) {
            return switch (name) {
                case "nvme-tcp" -> NVME_TCP;
                case "nfs" -> NFS;
                default -> throw new IllegalArgumentException("--protocol must be nvme-tcp or nfs, is '" + name + "'");
            };
        }
    }

    /** The parsed options of {@code up}. */
    record Options(Path project, Path outDir, Backend backend, VolumeMode mode, Scenario scenario, Protocol protocol,
                   boolean keep, List<String> command) {
    }

    private SandboxRun() {
    }

    static int run(Options options, PrintStream out) throws Exception {
        if (!"1".equals(System.getenv("PILLAR_KERNEL_VM"))) {
            out.println("sandbox up runs inside the VM only (it creates pools, mounts and kernel objects): use dev/sandbox");
            return 2;
        }
        // kernel messages (e.g. loop devices' WRITE_ZEROES noise) stay in dmesg.log, off the console
        Files.writeString(Path.of("/proc/sys/kernel/printk"), "1");
        if (!Files.isDirectory(Path.of("/sys/module/zfs"))) {
            out.println("the VM's kernel has no zfs module loaded (dev/vm/setup builds it; dev/sandbox sets PILLAR_VM_ZFS=1)");
            return 2;
        }
        boolean nfs = options.protocol() == Protocol.NFS;
        if (nfs) {
            out.printf("pillar-csi sandbox: NFS (a ZFS dataset store, ReadWriteMany on two nodes), kernel %s%n",
                    System.getProperty("os.version"));
        } else {
            out.printf("pillar-csi sandbox: backend %s, volume mode %s, scenario %s, kernel %s%n", options.backend(), options.mode(),
                    options.scenario().name().toLowerCase(java.util.Locale.ROOT), System.getProperty("os.version"));
        }
        List<String> changes = new ArrayList<>();
        Path quickstart = options.project().resolve("examples/sandbox/quickstart.yaml");
        List<GenericKubernetesResource> objects = new ArrayList<>(SandboxObjects.forSandbox(SandboxObjects.load(quickstart),
                options.backend(), options.mode(), changes));
        out.println("objects: " + quickstart + (changes.isEmpty() ? " as written" : ", with " + String.join("; ", changes)));
        if (nfs) {
            Path example = options.project().resolve("examples/sandbox/nfs.yaml");
            List<String> nfsChanges = new ArrayList<>();
            objects.addAll(SandboxObjects.forNfs(SandboxObjects.load(example), nfsChanges));
            out.println("    and " + example + " (its Pillar objects), with " + String.join("; ", nfsChanges));
        }

        BedLayout layout = BedLayout.sandbox(options.project(), options.outDir().resolve("logs"));
        int status;
        try (Bed bed = Bed.start(layout, true, objects, List.of(), nfs, out)) {
            StorageClass sc = bed.storageClasses().get(nfs ? SandboxObjects.NFS_STORAGE_CLASS : SandboxObjects.STORAGE_CLASS);
            out.println("  generated " + Quickstart.describe(sc));

            out.println();
            out.println("== the workloads answer, as the CO and the controller ask them");
            Probes.csi("controller", layout.controllerSocket().toString(), bed.controller().channel(), out);
            Probes.csi("node", layout.nodeSocket().toString(), bed.node().channel(), out);
            Probes.agent("127.0.0.1", layout.ports().agent(), bed.pki(), out);
            out.println("  node ID (NodeGetInfo): " + bed.node().nodeId());
            for (NfsNode n : bed.nfsNodes()) {
                Probes.csi(n.name(), n.csi().socket().toString(), n.csi().channel(), out);
            }

            out.println();
            Lifecycle.Plan plan = new Lifecycle.Plan(options.backend() + " " + options.mode(), options.mode(),
                    sc.getParameters().get("csi.storage.k8s.io/fstype"), sc.getParameters(), 320 * MIB, 640 * MIB);
            Steps.Result result;
            if (nfs) {
                out.println("== one ReadWriteMany volume over NFS on two nodes, played as external-provisioner,"
                        + " external-attacher, kubelet and external-resizer");
                result = new NfsScenario(bed.controller(), bed.nfsd(), bed.nfsNodes(), bed.kubeletDirs(), out)
                        .run("nfs ReadWriteMany", sc.getParameters(), plan.bytes(), plan.grownBytes());
            } else if (options.scenario() == Scenario.SNAPSHOT) {
                out.println("== one volume's snapshot, restore and clone, played as external-snapshotter,"
                        + " external-provisioner and kubelet");
                result = new SnapshotScenario(bed.controller(), bed.node(), out).run(plan);
            } else {
                out.println("== one volume's life, played as external-provisioner, external-attacher, kubelet and external-resizer");
                result = new Lifecycle(bed.controller(), bed.node(), out).run(plan);
            }
            Steps.summary(result, out);
            status = result.passed() ? 0 : 1;
            out.println();
            MetricsExcerpt.print(layout.ports().healthPorts(), out);

            Map<String, String> env = UserCommand.environment(layout, sc.getParameters());
            if (!options.command().isEmpty()) {
                out.println();
                out.println("== your command: " + String.join(" ", options.command()) + "  with " + env);
                int commandStatus = UserCommand.run(options.command(), options.project(), env, null);
                out.println("== your command exited with status " + commandStatus);
                status = status != 0 ? status : commandStatus;
            }
            if (options.keep()) {
                keep(options, layout, bed, env, out);
            }
            out.println();
            out.println("== stopping the workloads and removing the pools");
        }
        out.println(status == 0 ? "Sandbox PASSED" : "Sandbox FAILED");
        return status;
    }

    private static void keep(Options options, BedLayout layout, Bed bed, Map<String, String> env, PrintStream out)
            throws Exception {
        StringBuilder reach = new StringBuilder();
        reach.append("The sandbox is left running (--keep), in the VM. From the host:\n");
        reach.append("  dev/sandbox exec -- CMD ARGS...   runs a command in the VM, with\n");
        env.forEach((k, v) -> reach.append("      ").append(k).append('=').append(v).append('\n'));
        reach.append("  dev/sandbox stop                  stops the workloads, removes the pools, powers the VM off\n");
        reach.append("  logs: ").append(bed.logs()).append('\n');
        reach.append("  emulated Kubernetes API (in the VM): ").append(bed.kubeUrl()).append(", kubeconfig ")
                .append(layout.kubeconfig()).append('\n');
        out.println();
        out.print(reach);
        new ControlChannel(options.outDir().resolve("control"), options.project(), env, out).serve(reach.toString());
    }
}
