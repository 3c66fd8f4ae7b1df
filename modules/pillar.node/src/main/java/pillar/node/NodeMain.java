package pillar.node;

import java.util.List;
import java.util.logging.Logger;

import io.helidon.logging.common.LogConfig;
import pillar.api.server.CsiEndpoint;
import pillar.api.server.CsiServices;
import pillar.api.server.IdentityService;
import pillar.api.server.WorkloadConfig;
import pillar.api.server.WorkloadServer;

/**
 * pillar-node: runs on every worker and serves CSI Identity and Node on the kubelet plugin socket,
 * and health over HTTP. The Node calls answer UNIMPLEMENTED until the node service lands.
 */
public final class NodeMain {
    /** Health port; distinct from the agent's, both DaemonSets share the host network. */
    public static final int DEFAULT_HEALTH_PORT = 9809;
    private static final Logger LOG = Logger.getLogger(NodeMain.class.getName());

    private NodeMain() {
    }

    public static void main(String[] args) {
        LogConfig.configureRuntime();
        CsiEndpoint endpoint;
        try {
            endpoint = CsiEndpoint.from(WorkloadConfig.load(args), DEFAULT_HEALTH_PORT);
        } catch (IllegalArgumentException e) {
            System.err.println("pillar-node: refusing to start: " + e.getMessage());
            System.exit(2);
            return;
        }
        WorkloadServer server = start(endpoint);
        LOG.info(() -> "pillar-node ready: CSI on unix:" + endpoint.socket() + ", health on port " + server.healthPort());
    }

    /** Starts the node's server; the caller owns it. */
    public static WorkloadServer start(CsiEndpoint endpoint) {
        IdentityService identity = new IdentityService(List.of(), () -> true);
        WorkloadServer.Builder builder = endpoint.serverBuilder().readiness("node", () -> true);
        CsiServices.node(identity, new CsiServices.UnimplementedNode()).forEach(builder::service);
        return builder.start();
    }
}
