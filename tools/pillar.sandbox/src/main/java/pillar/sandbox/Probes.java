package pillar.sandbox;

import java.io.PrintStream;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

import io.grpc.ManagedChannel;
import pillar.api.agent.v1.AgentServiceGrpc;
import pillar.api.agent.v1.GetCapabilitiesRequest;
import pillar.api.agent.v1.GetCapabilitiesResponse;
import pillar.api.csi.v1.GetPluginCapabilitiesRequest;
import pillar.api.csi.v1.GetPluginInfoRequest;
import pillar.api.csi.v1.GetPluginInfoResponse;
import pillar.api.csi.v1.IdentityGrpc;
import pillar.api.csi.v1.ProbeRequest;

/** Asks each workload who it is, as the CO and the controller do, and prints the answers. */
final class Probes {
    private Probes() {
    }

    /** GetPluginInfo, GetPluginCapabilities and Probe on a CSI socket's channel. */
    static void csi(String name, String socket, ManagedChannel channel, PrintStream out) {
        IdentityGrpc.IdentityBlockingStub identity = IdentityGrpc.newBlockingStub(channel)
                .withDeadlineAfter(CsiController.CALL_DEADLINE_SECONDS, TimeUnit.SECONDS);
        GetPluginInfoResponse info = identity.getPluginInfo(GetPluginInfoRequest.getDefaultInstance());
        var capabilities = identity.getPluginCapabilities(GetPluginCapabilitiesRequest.getDefaultInstance())
                .getCapabilitiesList().stream().map(c -> c.hasService() ? c.getService().getType().name()
                        : c.hasVolumeExpansion() ? "VOLUME_EXPANSION_" + c.getVolumeExpansion().getType().name() : c.toString())
                .toList();
        boolean ready = identity.probe(ProbeRequest.getDefaultInstance()).getReady().getValue();
        out.printf("  %-10s unix:%s  %s %s, plugin capabilities %s, Probe ready=%s%n", name, socket, info.getName(),
                info.getVendorVersion(), capabilities.isEmpty() ? "none" : capabilities, ready);
    }

    /**
     * The agent's GetCapabilities over TCP with mutual TLS, as the controller calls it: {@code pki}'s
     * client certificate, the agent's certificate verified against its CA and server name.
     */
    static void agent(String host, int port, SandboxPki pki, PrintStream out) throws InterruptedException {
        ManagedChannel channel = pki.agentChannel(host, port);
        try {
            GetCapabilitiesResponse caps = AgentServiceGrpc.newBlockingStub(channel)
                    .withDeadlineAfter(CsiController.CALL_DEADLINE_SECONDS, TimeUnit.SECONDS)
                    .getCapabilities(GetCapabilitiesRequest.getDefaultInstance());
            out.printf("  %-10s tcp:%s:%d (mTLS)  version %s, protocols %s, backends %s%n", "agent", host, port,
                    caps.getAgentVersion(), caps.getExportProtocolsList().stream()
                            .map(p -> p.name().replace("EXPORT_PROTOCOL_", "").toLowerCase(Locale.ROOT)).toList(), caps.getBackendsList().stream()
                            .map(b -> b.getName() + " (" + b.getKind().name().replace("BACKEND_KIND_", "")
                                    .toLowerCase(Locale.ROOT) + " " + b.getPool()
                                    + (b.getParent().isEmpty() ? "" : "/" + b.getParent()) + ")").toList());
        } finally {
            channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
        }
    }
}
