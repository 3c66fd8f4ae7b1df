package pillar.agent;

import java.util.logging.Logger;

import io.helidon.common.configurable.Resource;
import io.helidon.common.tls.Tls;
import io.helidon.common.tls.TlsClientAuth;
import io.helidon.logging.common.LogConfig;
import pillar.agent.config.AgentConfig;
import pillar.agent.service.AgentGrpcService;
import pillar.api.server.WorkloadConfig;
import pillar.api.server.WorkloadServer;

/**
 * pillar-agent: runs on a storage node, serves the agent API over TCP (plaintext by default, mTLS
 * when certificate files are configured) and health over HTTP.
 */
public final class AgentMain {
    private static final Logger LOG = Logger.getLogger(AgentMain.class.getName());

    private AgentMain() {
    }

    public static void main(String[] args) {
        LogConfig.configureRuntime();
        AgentConfig config;
        try {
            config = AgentConfig.from(WorkloadConfig.load(args));
        } catch (IllegalArgumentException e) {
            System.err.println("pillar-agent: refusing to start: " + e.getMessage());
            System.exit(2);
            return;
        }
        WorkloadServer server = start(config);
        LOG.info(() -> "pillar-agent ready: agent API on " + config.listenHost() + ":" + server.grpcPort()
                + (config.tls().isPresent() ? " (mTLS)" : " (plaintext)") + ", health on port " + server.healthPort()
                + ", backends " + config.backends().stream().map(b -> b.name()).toList());
    }

    /** Starts the agent's server; the caller owns it. */
    public static WorkloadServer start(AgentConfig config) {
        WorkloadServer.Builder builder = WorkloadServer.builder()
                .tcp(config.listenHost(), config.listenPort())
                .health(config.healthHost(), config.healthPort())
                .service(new AgentGrpcService(config.backends()))
                .readiness("agent", () -> true);
        config.tls().ifPresentOrElse(files -> builder.tls(mutualTls(files)), () -> LOG.warning(
                "*** the agent API is served WITHOUT TLS: any host that reaches port " + config.listenPort()
                        + " can create, export and delete volumes. Configure agent.tls (cert, key, ca) for mTLS. ***"));
        return builder.start();
    }

    private static Tls mutualTls(AgentConfig.TlsFiles files) {
        return Tls.builder()
                .privateKey(keys -> keys.pem(pem -> pem.key(Resource.create(files.key()))))
                .privateKeyCertChain(keys -> keys.pem(pem -> pem.certChain(Resource.create(files.cert()))))
                .trust(keys -> keys.pem(pem -> pem.certificates(Resource.create(files.ca()))))
                .clientAuth(TlsClientAuth.REQUIRED)
                .build();
    }
}
