package pillar.controller;

import java.util.List;
import java.util.logging.Logger;

import io.helidon.logging.common.LogConfig;
import pillar.api.csi.v1.PluginCapability;
import pillar.api.server.CsiEndpoint;
import pillar.api.server.CsiServices;
import pillar.api.server.IdentityService;
import pillar.api.server.WorkloadConfig;
import pillar.api.server.WorkloadServer;

/**
 * pillar-controller: runs as a Deployment and serves CSI Identity and Controller on the sidecars' socket,
 * and health over HTTP. The Controller calls answer UNIMPLEMENTED until the controller service lands.
 */
public final class ControllerMain {
    /** Health port (the controller runs in its own network namespace). */
    public static final int DEFAULT_HEALTH_PORT = 9808;
    private static final Logger LOG = Logger.getLogger(ControllerMain.class.getName());

    private ControllerMain() {
    }

    public static void main(String[] args) {
        LogConfig.configureRuntime();
        CsiEndpoint endpoint;
        try {
            endpoint = CsiEndpoint.from(WorkloadConfig.load(args), DEFAULT_HEALTH_PORT);
        } catch (IllegalArgumentException e) {
            System.err.println("pillar-controller: refusing to start: " + e.getMessage());
            System.exit(2);
            return;
        }
        WorkloadServer server = start(endpoint);
        LOG.info(() -> "pillar-controller ready: CSI on unix:" + endpoint.socket() + ", health on port " + server.healthPort());
    }

    /** Starts the node's server; the caller owns it. */
    public static WorkloadServer start(CsiEndpoint endpoint) {
        IdentityService identity = new IdentityService(List.of(PluginCapability.Service.Type.CONTROLLER_SERVICE), () -> true);
        WorkloadServer.Builder builder = endpoint.serverBuilder().readiness("controller", () -> true);
        CsiServices.controller(identity, new CsiServices.UnimplementedController()).forEach(builder::service);
        return builder.start();
    }
}
