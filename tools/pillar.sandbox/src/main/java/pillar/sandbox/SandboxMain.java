package pillar.sandbox;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import io.grpc.StatusRuntimeException;
import io.helidon.logging.common.LogConfig;
import pillar.api.agent.v1.AgentServiceGrpc;
import pillar.api.agent.v1.GetCapabilitiesRequest;
import pillar.api.agent.v1.GetCapabilitiesResponse;
import pillar.api.csi.v1.GetPluginCapabilitiesRequest;
import pillar.api.csi.v1.GetPluginInfoResponse;
import pillar.api.csi.v1.GetPluginInfoRequest;
import pillar.api.csi.v1.IdentityGrpc;
import pillar.api.csi.v1.ProbeRequest;
import pillar.api.server.Channels;

/**
 * The sandbox driver, a developer tool run on the class path (it is not shipped). Commands:
 * <ul>
 *   <li>{@code probe --csi NAME=SOCKET... --agent HOST:PORT}: asks each workload who it is, as the CO
 *       would, prints the answers and exits non-zero if any did not answer;</li>
 *   <li>{@code kube-api PORT KUBECONFIG CRD_DIR}: the emulated Kubernetes API ({@link KubeApi});</li>
 *   <li>{@code apply KUBECONFIG OBJECTS.yaml}: creates objects and waits for their conditions
 *       ({@link Quickstart}).</li>
 * </ul>
 */
public final class SandboxMain {
    private SandboxMain() {
    }

    public static void main(String[] args) throws Exception {
        LogConfig.configureRuntime();
        if (args.length == 4 && args[0].equals("kube-api")) {
            KubeApi.run(Integer.parseInt(args[1]), Path.of(args[2]), Path.of(args[3]));
            return;
        }
        if (args.length == 3 && args[0].equals("apply")) {
            System.exit(Quickstart.apply(Path.of(args[1]), Path.of(args[2])));
        }
        if (args.length == 0 || !args[0].equals("probe")) {
            System.err.println("usage: probe [--csi NAME=SOCKET]... [--agent HOST:PORT]"
                    + " | kube-api PORT KUBECONFIG CRD_DIR | apply KUBECONFIG OBJECTS.yaml");
            System.exit(2);
        }
        List<String> failures = new ArrayList<>();
        for (int i = 1; i + 1 < args.length; i += 2) {
            String value = args[i + 1];
            try {
                switch (args[i]) {
                    case "--csi" -> probeCsi(value.substring(0, value.indexOf('=')),
                            Path.of(value.substring(value.indexOf('=') + 1)));
                    case "--agent" -> probeAgent(value);
                    default -> throw new IllegalArgumentException("unknown option " + args[i]);
                }
            } catch (StatusRuntimeException e) {
                failures.add(value + ": " + e.getStatus());
                System.out.println("  FAILED " + value + ": " + e.getStatus());
            }
        }
        if (!failures.isEmpty()) {
            System.exit(1);
        }
    }

    private static void probeCsi(String name, Path socket) throws InterruptedException {
        ManagedChannel channel = Channels.unix(socket);
        try {
            IdentityGrpc.IdentityBlockingStub identity = IdentityGrpc.newBlockingStub(channel)
                    .withDeadlineAfter(30, TimeUnit.SECONDS);
            GetPluginInfoResponse info = identity.getPluginInfo(GetPluginInfoRequest.getDefaultInstance());
            var capabilities = identity.getPluginCapabilities(GetPluginCapabilitiesRequest.getDefaultInstance())
                    .getCapabilitiesList().stream().map(c -> c.getService().getType().name()).toList();
            boolean ready = identity.probe(ProbeRequest.getDefaultInstance()).getReady().getValue();
            System.out.printf("  %-10s unix:%s  GetPluginInfo: %s %s  capabilities: %s  Probe: ready=%s%n",
                    name, socket, info.getName(), info.getVendorVersion(), capabilities, ready);
        } finally {
            channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
        }
    }

    private static void probeAgent(String address) throws InterruptedException {
        int colon = address.lastIndexOf(':');
        ManagedChannel channel = Grpc.newChannelBuilderForAddress(address.substring(0, colon),
                Integer.parseInt(address.substring(colon + 1)), InsecureChannelCredentials.create()).build();
        try {
            GetCapabilitiesResponse caps = AgentServiceGrpc.newBlockingStub(channel)
                    .withDeadlineAfter(30, TimeUnit.SECONDS).getCapabilities(GetCapabilitiesRequest.getDefaultInstance());
            System.out.printf("  %-10s tcp:%s  GetCapabilities: version %s, protocols %s, backends %s%n", "agent",
                    address, caps.getAgentVersion(), caps.getProtocolsList(),
                    caps.getBackendsList().stream().map(b -> b.getName() + "(" + b.getKind().name()
                            .replace("BACKEND_KIND_", "").toLowerCase(java.util.Locale.ROOT) + " " + b.getPool()
                            + (b.getParent().isEmpty() ? "" : "/" + b.getParent()) + ")").toList());
        } finally {
            channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
        }
    }
}
