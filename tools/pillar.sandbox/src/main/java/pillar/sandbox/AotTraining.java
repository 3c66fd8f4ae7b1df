package pillar.sandbox;

import java.io.IOException;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.grpc.StatusRuntimeException;
import pillar.api.csi.v1.ControllerGetCapabilitiesRequest;
import pillar.api.csi.v1.NodeGetCapabilitiesRequest;

/**
 * {@code train}: records the AOT caches ({@code target/aot/<module>.aot}) of the three workloads, and
 * of this JVM when it runs with {@code -XX:AOTCacheOutput}, by running them briefly on the host, where
 * a JVM starts in seconds rather than minutes: the emulated API, the workloads (the agent on a stand-in
 * configfs directory: the host has no nvmet), the quickstart applied, each CSI socket asked who it is.
 * The VM then starts every JVM from its cache, several times faster. Nothing runs when every cache is
 * newer than the jars it was made from. Each JVM writes its cache when it exits (SIGTERM).
 */
final class AotTraining {
    private static final Duration DEADLINE = Duration.ofMinutes(5);

    private AotTraining() {
    }

    static int run(Path project, PrintStream out) throws Exception {
        Path dir = project.resolve("target/aot-training");
        deleteTree(dir);
        BedLayout layout = BedLayout.under(project, dir, dir.resolve("logs"), freePorts());
        Path configfs = Files.createDirectories(dir.resolve("configfs"));
        for (String sub : List.of("nvmet/hosts", "nvmet/ports", "nvmet/subsystems")) {
            Files.createDirectories(configfs.resolve(sub));
        }
        SandboxPki pki = SandboxPki.create(layout.tlsDir());
        List<Workload> workloads = List.of(
                Workloads.agent(layout, List.of("{name: sandbox-thin, type: lvm-thin, volume-group: sandbox, thin-pool: pool0}"),
                        configfs, pki),
                Workloads.node(layout), Workloads.controller(layout, pki));
        List<Workload> stale = workloads.stream().filter(w -> !w.cacheFresh(project, layout.aotCaches())).toList();
        boolean self = ManagementFactory.getRuntimeMXBean().getInputArguments().stream()
                .anyMatch(a -> a.startsWith("-XX:AOTCacheOutput="));
        if (stale.isEmpty() && !self) {
            out.println("  AOT caches up to date in " + layout.aotCaches());
            return 0;
        }
        out.println("  recording the AOT caches of " + (self ? "the sandbox driver and " : "")
                + stale.stream().map(Workload::module).toList() + " in " + layout.aotCaches());
        Files.createDirectories(layout.aotCaches());
        List<WorkloadProcess> running = new ArrayList<>();
        try (KubeApi kube = KubeApi.start(layout.ports().kubeApi(), layout.kubeconfig(), project.resolve("helm/pillar-csi/crds"))) {
            for (Workload w : workloads) {
                running.add(WorkloadProcess.start(w, project, layout.aotCaches(), layout.logs(), true));
            }
            Startup.await(running, DEADLINE, out);
            exercise(kube, layout, pki, out);
        } finally {
            running.forEach(WorkloadProcess::terminate);
            running.forEach(WorkloadProcess::close);
        }
        for (Workload w : stale) {
            if (!w.cacheFresh(project, layout.aotCaches())) {
                out.println("  warning: no AOT cache was written for " + w.module() + "; see " + layout.logs());
            }
        }
        return 0;
    }

    /** The calls the sandbox makes, so that their classes are in the caches. */
    private static void exercise(KubeApi kube, BedLayout layout, SandboxPki pki, PrintStream out) throws InterruptedException {
        List<GenericKubernetesResource> objects = SandboxObjects.withMutualTls(
                SandboxObjects.load(layout.project().resolve("examples/sandbox/quickstart.yaml")));
        for (GenericKubernetesResource o : objects) {
            if (o.getKind().equals("PillarAgent")) {
                @SuppressWarnings("unchecked")
                Map<String, Object> spec = (Map<String, Object>) o.getAdditionalProperties().get("spec");
                spec.put("port", layout.ports().agent());
            }
        }
        Quickstart.create(kube.client(), objects, new PrintStream(PrintStream.nullOutputStream()));
        try (CsiController controller = new CsiController(layout.controllerSocket());
             KubeletNode node = new KubeletNode(layout.nodeSocket(), layout.kubeletDir())) {
            PrintStream quiet = new PrintStream(PrintStream.nullOutputStream());
            Probes.csi("controller", layout.controllerSocket().toString(), controller.channel(), quiet);
            Probes.csi("node", layout.nodeSocket().toString(), node.channel(), quiet);
            Probes.agent("127.0.0.1", layout.ports().agent(), pki, quiet);
            node.stub().nodeGetCapabilities(NodeGetCapabilitiesRequest.getDefaultInstance());
            node.nodeId();
            controller.stub().controllerGetCapabilities(ControllerGetCapabilitiesRequest.getDefaultInstance());
        } catch (StatusRuntimeException e) {
            // training only: what answers an error still loaded its classes
            out.println("  (training call answered " + e.getStatus().getCode() + ")");
        }
        // a few reconcile rounds of the controller (it polls every 5 s)
        Thread.sleep(Duration.ofSeconds(12));
        out.println("  trained: the quickstart applied, every socket asked who it is");
    }

    private static BedLayout.Ports freePorts() throws IOException {
        int[] ports = new int[5];
        List<ServerSocket> sockets = new ArrayList<>();
        try {
            for (int i = 0; i < ports.length; i++) {
                ServerSocket socket = new ServerSocket(0);
                sockets.add(socket);
                ports[i] = socket.getLocalPort();
            }
        } finally {
            for (ServerSocket s : sockets) {
                s.close();
            }
        }
        return new BedLayout.Ports(ports[0], ports[1], ports[2], ports[3], ports[4]);
    }

    private static void deleteTree(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(dir)) {
            for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }
}
