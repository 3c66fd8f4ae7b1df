package pillar.sandbox;

import java.io.PrintStream;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.storage.StorageClass;
import io.fabric8.kubernetes.client.KubernetesClient;

/**
 * Everything the sandbox and the end-to-end suite run on, in the VM: the storage pools, and as real
 * processes the emulated Kubernetes API (from the sandbox tool's class path), pillar-controller,
 * pillar-agent and pillar-node (from their packaged module paths), the Pillar objects applied and reconciled, and CSI
 * clients on the real sockets. With NFS, also the kernel NFS server ({@link NfsdBed}, before the agent,
 * which checks it at start), the agent's zfs-dataset backend, and two more pillar-nodes
 * ({@link #NFS_NODES}), each in a network namespace of its own address, registered in the emulated API as
 * kubelet registers a node (a Node with that InternalIP, a CSINode with the node's ID), since the
 * controller admits an NFS client by its Node's address. Started once and closed once: JVMs start
 * slowly under emulation. Closing stops the workloads, removes what is left in the kernel, stops the
 * NFS server and destroys the pools.
 */
final class Bed implements AutoCloseable {
    private static final Duration START_DEADLINE = Duration.ofMinutes(12);
    private static final Duration RECONCILE_DEADLINE = Duration.ofMinutes(5);
    /** The NFS nodes' network namespaces (and node names' suffixes): two nodes share a ReadWriteMany volume. */
    static final List<String> NFS_NODES = List.of("nfs-a", "nfs-b");
    private static final int NFS_NODE_HEALTH = 19831;

    private final BedLayout layout;
    private final PrintStream out;
    private final List<WorkloadProcess> workloads = new ArrayList<>();
    private final List<AutoCloseable> clients = new ArrayList<>();
    private StoragePools pools;
    private SandboxPki pki;
    private KubernetesClient kube;
    private Map<String, StorageClass> storageClasses = Map.of();
    private CsiController controller;
    private KubeletNode node;
    private NfsdBed nfsd;
    private final List<NfsNode> nfsNodes = new ArrayList<>();

    private Bed(BedLayout layout, PrintStream out) {
        this.layout = layout;
        this.out = out;
    }

    /**
     * Starts a bed and applies {@code objects}; {@code zfs} adds the ZFS pool and backend. Prints
     * each stage with its time, and progress while JVMs start.
     */
    static Bed start(BedLayout layout, boolean zfs, List<GenericKubernetesResource> objects, PrintStream out)
            throws Exception {
        return start(layout, zfs, objects, List.of(), out);
    }

    /** {@link #start}, with more nodes (other node identities on this kernel) started alongside. */
    static Bed start(BedLayout layout, boolean zfs, List<GenericKubernetesResource> objects, List<Workload> moreNodes,
                     PrintStream out) throws Exception {
        return start(layout, zfs, objects, moreNodes, false, out);
    }

    /** {@link #start}, with the NFS server and the NFS nodes when {@code nfs} (it needs {@code zfs}). */
    static Bed start(BedLayout layout, boolean zfs, List<GenericKubernetesResource> objects, List<Workload> moreNodes,
                     boolean nfs, PrintStream out) throws Exception {
        if (nfs && !zfs) {
            throw new IllegalArgumentException("NFS serves ZFS datasets: a bed with NFS needs the ZFS pool");
        }
        Bed bed = new Bed(layout, out);
        try {
            bed.startAll(zfs, objects, moreNodes, nfs);
            return bed;
        } catch (Exception | Error e) {
            bed.close();
            throw e;
        }
    }

    private void startAll(boolean zfs, List<GenericKubernetesResource> objects, List<Workload> moreNodes, boolean nfs)
            throws Exception {
        Timer timer = new Timer(out);
        timer.stage("storage pools (loop devices in memory)");
        pools = StoragePools.create(layout.work().resolve("pools"), zfs);
        pools.created().forEach(line -> out.println("  " + line));
        timer.done();
        List<String> backends = new ArrayList<>(pools.agentBackends());
        if (nfs) {
            timer.stage("the kernel NFS server (nfsd, rpc.mountd) and the NFS nodes' network namespaces");
            nfsd = NfsdBed.start(layout.project(), layout.logs(), NFS_NODES);
            nfsd.made().forEach(line -> out.println("  " + line));
            backends.add(NfsdBed.agentBackend());
            timer.done();
        }

        timer.stage("the emulated Kubernetes API, pillar-agent, pillar-node, then pillar-controller (real JVMs)");
        Files.deleteIfExists(layout.kubeconfig());
        WorkloadProcess emulator = WorkloadProcess.startEmulator(layout);
        workloads.add(emulator);
        out.println("  started a Kubernetes API EMULATOR on 127.0.0.1:" + layout.ports().kubeApi() + " (fabric8's mock");
        out.println("  server in CRUD mode: stores and watches objects; no admission, no schema validation, no kubelet),");
        out.println("  serving the chart's CRDs (helm/pillar-csi/crds); pid " + emulator.pid() + ", log " + emulator.log());
        List<WorkloadProcess> others = new ArrayList<>();
        pki = SandboxPki.create(layout.tlsDir());
        out.println("  the agent API is mTLS: a throw-away CA in " + layout.tlsDir() + " signed the agent's server certificate ("
                + SandboxPki.AGENT_SERVER_NAME + ") and the controller's client certificate (" + SandboxPki.CONTROLLER_NAME
                + ", the one name the agent admits)");
        others.add(WorkloadProcess.start(Workloads.agent(layout, backends, Path.of("/sys/kernel/config"), pki),
                layout.project(), layout.aotCaches(), layout.logs(), true));
        others.add(WorkloadProcess.start(Workloads.node(layout), layout.project(), layout.aotCaches(), layout.logs(), true));
        for (Workload node : moreNodes) {
            // one JVM per module records its AOT cache
            others.add(WorkloadProcess.start(node, layout.project(), layout.aotCaches(), layout.logs(), false));
        }
        List<NfsNode.Home> nfsHomes = new ArrayList<>();
        for (int i = 0; nfsd != null && i < NFS_NODES.size(); i++) {
            NfsNode.Home home = NfsNode.Home.under(layout.work(), NFS_NODES.get(i));
            nfsHomes.add(home);
            others.add(WorkloadProcess.startInNetns(home.workload(NFS_NODE_HEALTH + i), home.netns(), layout.project(),
                    layout.aotCaches(), layout.logs(), () -> Files.exists(home.socket())));
        }
        others.forEach(w -> out.println("  started " + w.name() + " (pid " + w.pid() + "), log " + w.log()));
        workloads.addAll(others);
        // the controller needs the API: it starts once the emulator is up
        Startup.await(workloads, emulator, () -> WorkloadProcess.start(Workloads.controller(layout, pki), layout.project(),
                layout.aotCaches(), layout.logs(), true), START_DEADLINE, out);
        kube = KubeApi.client("http://127.0.0.1:" + layout.ports().kubeApi());
        timer.done();

        controller = client(new CsiController(layout.controllerSocket()));
        node = client(new KubeletNode(layout.nodeSocket(), layout.kubeletDir()));
        for (NfsNode.Home home : nfsHomes) {
            NfsNode nfsNode = NfsNode.register(home, client(new KubeletNode(home.socket(), home.kubeletDir())),
                    nfsd.node(home.netns()), kube);
            nfsNodes.add(nfsNode);
            out.println("  registered " + nfsNode.describe());
        }

        timer.stage("Pillar objects applied, waiting for the controller's conditions");
        List<GenericKubernetesResource> applied = SandboxObjects.withMutualTls(objects);
        Quickstart.create(kube, applied, out);
        storageClasses = Quickstart.awaitReconciled(kube, applied, RECONCILE_DEADLINE, out);
        timer.done();
    }

    private <T extends AutoCloseable> T client(T client) {
        clients.add(client);
        return client;
    }

    BedLayout layout() {
        return layout;
    }

    /** The certificates the agent and the controller use (mutual TLS). */
    SandboxPki pki() {
        return pki;
    }

    /** A client of the emulated API (the bed closes it). */
    KubernetesClient kube() {
        return kube;
    }

    String kubeUrl() {
        return "http://127.0.0.1:" + layout.ports().kubeApi();
    }

    StoragePools pools() {
        return pools;
    }

    CsiController controller() {
        return controller;
    }

    KubeletNode node() {
        return node;
    }

    /** The NFS nodes, each in its network namespace (none unless started with NFS). */
    List<NfsNode> nfsNodes() {
        return List.copyOf(nfsNodes);
    }

    /** The NFS server (null unless started with NFS). */
    NfsdBed nfsd() {
        return nfsd;
    }

    /** Every node's kubelet directory: the mounts a snapshot of the kernel objects looks at. */
    List<Path> kubeletDirs() {
        List<Path> dirs = new ArrayList<>(List.of(layout.kubeletDir()));
        nfsNodes.forEach(n -> dirs.add(n.csi().kubeletDir()));
        return dirs;
    }

    /** The generated StorageClasses, by name. */
    Map<String, StorageClass> storageClasses() {
        return storageClasses;
    }

    /** A workload by name ("controller", "agent", "node", or one added with {@link #add}). */
    WorkloadProcess workload(String name) {
        return workloads.stream().filter(w -> w.name().equals(name)).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("no workload " + name));
    }

    /** Starts one more workload (a second node) and waits until it is ready. */
    WorkloadProcess add(Workload workload) throws InterruptedException {
        boolean training = workloads.stream().anyMatch(w -> w.module().equals(workload.module()));
        WorkloadProcess process = WorkloadProcess.start(workload, layout.project(), layout.aotCaches(), layout.logs(),
                !training);
        workloads.add(process);
        Startup.await(List.of(process), START_DEADLINE, out);
        return process;
    }

    /** Where each workload's log is, for the output. */
    Map<String, String> logs() {
        Map<String, String> logs = new LinkedHashMap<>();
        workloads.forEach(w -> logs.put(w.name(), w.log().toString()));
        return logs;
    }

    /**
     * Stops the workloads (node first, so that nothing re-creates what the clean-up removes), removes
     * what is left in the kernel below {@code kubeletDirs} (every node's: {@link #kubeletDirs} and any
     * the caller added), stops the NFS server, destroys the pools. Returns what the clean-up had to remove.
     */
    List<String> stop(List<Path> kubeletDirs) {
        List<String> leftovers = new ArrayList<>();
        for (AutoCloseable c : clients) {
            closeQuietly(c, leftovers);
        }
        clients.clear();
        workloads.reversed().forEach(WorkloadProcess::terminate);
        for (WorkloadProcess w : workloads.reversed()) {
            closeQuietly(w, leftovers);
        }
        workloads.clear();
        leftovers.addAll(KernelCleanup.run(kubeletDirs));
        if (nfsd != null) {
            closeQuietly(nfsd, leftovers);
            nfsd = null;
        }
        if (pools != null) {
            closeQuietly(pools, leftovers);
            pools = null;
        }
        if (kube != null) {
            kube.close();
            kube = null;
        }
        return leftovers;
    }

    @Override
    public void close() {
        List<String> leftovers = stop(kubeletDirs());
        if (!leftovers.isEmpty()) {
            out.println("  clean-up removed what was left: " + leftovers);
        }
    }

    private static void closeQuietly(AutoCloseable closeable, List<String> problems) {
        try {
            closeable.close();
        } catch (Exception e) {
            problems.add("FAILED to close " + closeable + ": " + e);
        }
    }

    /** Prints a stage's start and its time. */
    static final class Timer {
        private final PrintStream out;
        private long stageStart;
        private String stage;

        Timer(PrintStream out) {
            this.out = out;
        }

        void stage(String name) {
            stage = name;
            stageStart = System.nanoTime();
            out.println();
            out.println("== " + name);
        }

        long seconds() {
            return (System.nanoTime() - stageStart) / 1_000_000_000;
        }

        void done() {
            out.printf("== %s: done in %.1f s%n", stage, (System.nanoTime() - stageStart) / 1e9);
        }
    }
}
