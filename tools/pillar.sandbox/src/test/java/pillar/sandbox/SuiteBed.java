package pillar.sandbox;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.storage.StorageClass;

/**
 * The end-to-end suite's bed, started once for the suite's class: the sandbox's bed with all three
 * backends, one PillarStore per backend and one PillarStorageClass per backend and filesystem (from
 * the quickstart's agent and protocol), a second node identity on the same kernel ("node-b":
 * its own host NQN, state and kubelet directories, socket), for the access-mode tests, and
 * examples/sandbox/nfs.yaml's objects with the NFS server and the two NFS nodes ({@link Bed#NFS_NODES}).
 */
final class SuiteBed implements AutoCloseable {
    static final String NODE_B = "node-b";
    static final int NODE_B_HEALTH = 19819;

    final Bed bed;
    final KubeletNode nodeB;
    private SuiteBed(Bed bed, KubeletNode nodeB) {
        this.bed = bed;
        this.nodeB = nodeB;
    }

    /** Starts it under {@code dir} (in the VM's memory), with its logs in the project's target directory. */
    static SuiteBed start(Path dir, String logName) throws Exception {
        requireVm();
        SandboxMain.quietLogging();
        Path project = projectRoot();
        BedLayout layout = BedLayout.under(project, dir, project.resolve("tools/pillar.sandbox/target/kernel-it-logs")
                .resolve(logName), BedLayout.Ports.VM);
        List<GenericKubernetesResource> quickstart = SandboxObjects.load(project.resolve("examples/sandbox/quickstart.yaml"));
        String agent = SandboxObjects.nameOf(quickstart, "PillarAgent");
        String protocol = SandboxObjects.nameOf(quickstart, "PillarProtocol");
        List<GenericKubernetesResource> objects = new ArrayList<>(quickstart.stream()
                .filter(o -> o.getKind().equals("PillarAgent") || o.getKind().equals("PillarProtocol")).toList());
        for (Backend backend : Backend.values()) {
            objects.add(SandboxObjects.store(agent, backend));
            for (String fsType : List.of("ext4", "xfs")) {
                objects.add(SandboxObjects.storageClass(backend, fsType, protocol));
            }
        }
        objects.addAll(SandboxObjects.forNfs(SandboxObjects.load(project.resolve("examples/sandbox/nfs.yaml")), new ArrayList<>()));
        Path b = dir.resolve(NODE_B);
        Path socketB = b.resolve("kubelet/plugins/pillar.csi.io/csi.sock");
        Workload nodeB = Workloads.node(NODE_B, Workloads.NODE_NAME + "-b", NODE_B_HEALTH, socketB, b.resolve("kubelet"),
                b.resolve("node-state"), b.resolve("etc/nvme/hostnqn"));
        Bed bed = Bed.start(layout, true, objects, List.of(nodeB), true, System.out);
        return new SuiteBed(bed, new KubeletNode(socketB, b.resolve("kubelet")));
    }

    /** The generated StorageClass's parameters for a backend and filesystem. */
    Map<String, String> parameters(Backend backend, String fsType) {
        return parameters(SandboxObjects.storageClassName(backend, fsType));
    }

    /** The generated StorageClass's parameters. */
    Map<String, String> parameters(String storageClass) {
        StorageClass sc = bed.storageClasses().get(storageClass);
        assertThat(sc).as("the generated StorageClass " + storageClass).isNotNull();
        return new TreeMap<>(sc.getParameters());
    }

    /** Fails unless this runs in the qemu VM of dev/kernel-it, with nvmet and zfs loaded. */
    static void requireVm() {
        assertThat(System.getenv("PILLAR_KERNEL_VM")).as("PILLAR_KERNEL_VM: the *KernelIT tier runs only inside the qemu VM;"
                + " use dev/kernel-it").isEqualTo("1");
        assertThat(Path.of("/sys/kernel/config/nvmet")).as("nvmet configfs (modules nvmet, nvmet-tcp)").isDirectory();
        assertThat(Path.of("/sys/module/zfs")).as("the zfs module (dev/vm/setup builds it; dev/kernel-it loads it)").isDirectory();
    }

    /** Every node's kubelet directory (node-b's and the NFS nodes' too): the mounts a snapshot looks at. */
    List<Path> kubeletDirs() {
        List<Path> dirs = new ArrayList<>(bed.kubeletDirs());
        dirs.add(nodeB.kubeletDir());
        return dirs;
    }

    KernelObjects snapshot() {
        return KernelObjects.read(kubeletDirs());
    }

    /** Stops everything; fails when the clean-up had to remove anything (a volume's steps left it behind). */
    @Override
    public void close() {
        nodeB.close();
        List<String> leftovers = bed.stop(kubeletDirs());
        System.out.println("[suite] clean-up: " + (leftovers.isEmpty() ? "nothing was left" : leftovers));
        assertThat(leftovers).as("what the suite's volumes left in the kernel").isEmpty();
    }

    /** The project root: the directory above the working directory that holds modules/ and pom.xml. */
    static Path projectRoot() throws IOException {
        for (Path p = Path.of("").toAbsolutePath(); p != null; p = p.getParent()) {
            if (Files.isDirectory(p.resolve("modules/pillar.agent")) && Files.isRegularFile(p.resolve("pom.xml"))) {
                return p;
            }
        }
        throw new IOException("no project root above " + Path.of("").toAbsolutePath());
    }
}
