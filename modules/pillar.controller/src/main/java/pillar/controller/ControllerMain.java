package pillar.controller;

import java.time.Clock;
import java.util.List;
import java.util.logging.Logger;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.helidon.logging.common.LogConfig;
import pillar.api.csi.v1.PluginCapability;
import pillar.api.server.CsiServices;
import pillar.api.server.IdentityService;
import pillar.api.server.WorkloadConfig;
import pillar.api.server.WorkloadServer;
import pillar.controller.agent.AgentClient;
import pillar.controller.agent.GrpcAgentClient;
import pillar.controller.csi.ControllerService;
import pillar.controller.csi.Leading;
import pillar.controller.csi.VolumeLocks;
import pillar.controller.reconcile.AgentTargets;
import pillar.controller.reconcile.PillarControllers;

/**
 * pillar-controller: runs as a Deployment, reconciles the Pillar CRDs, serves CSI Identity and
 * Controller on the sidecars' socket, and health over HTTP (ready once the informers have synced).
 * Configuration: see {@link ControllerConfig}.
 */
public final class ControllerMain {
    /** Health port (the controller runs in its own network namespace). */
    public static final int DEFAULT_HEALTH_PORT = ControllerConfig.DEFAULT_HEALTH_PORT;
    private static final Logger LOG = Logger.getLogger(ControllerMain.class.getName());

    private ControllerMain() {
    }

    public static void main(String[] args) {
        LogConfig.configureRuntime();
        ControllerConfig config;
        KubernetesClient client;
        GrpcAgentClient agents;
        try {
            config = ControllerConfig.from(WorkloadConfig.load(args));
            agents = new GrpcAgentClient(config.agentTls(), config.agentSettings());
            client = KubernetesClients.create(config.kubeconfig(), config.context());
        } catch (IllegalArgumentException e) {
            System.err.println("pillar-controller: refusing to start: " + e.getMessage());
            System.exit(2);
            return;
        }
        if (config.agentTls().isEmpty()) {
            LOG.warning("no agents.tls files: the controller can only reach agents whose tls.mode is none (plaintext)");
        }
        ControllerWorkload workload = start(config, client, agents);
        LOG.info(() -> "pillar-controller started: CSI on unix:" + config.endpoint().socket() + ", health on port "
                + workload.server().healthPort() + ", Kubernetes API " + client.getMasterUrl());
    }

    /**
     * Starts the controller on the given clients; the caller owns the result (and the clients).
     * Readiness ({@code informers-synced}) turns true once the reconcilers have begun.
     */
    public static ControllerWorkload start(ControllerConfig config, KubernetesClient client, AgentClient agents) {
        String namespace = config.namespace().orElseGet(() -> client.getNamespace() == null ? "default" : client.getNamespace());
        PillarControllers controllers = PillarControllers.start(client, agents, config.agentTls().isPresent(), namespace,
                config.reconcile(), Clock.systemUTC());
        try {
            IdentityService identity = new IdentityService(List.of(PluginCapability.Service.Type.CONTROLLER_SERVICE),
                    controllers::ready);
            WorkloadServer.Builder builder = config.endpoint().serverBuilder().readiness("informers-synced", controllers::ready);
            ControllerService service = new ControllerService(client, agents, new AgentTargets(client, config.agentTls().isPresent()),
                    new VolumeLocks(), Leading.ALWAYS);
            CsiServices.controller(identity, service).forEach(builder::service);
            return new ControllerWorkload(builder.start(), controllers);
        } catch (RuntimeException e) {
            controllers.close();
            throw e;
        }
    }
}
