package pillar.agent.service;

import java.util.List;

import io.grpc.stub.StreamObserver;
import pillar.agent.config.BackendConfig;
import pillar.api.agent.v1.AgentServiceGrpc;
import pillar.api.agent.v1.GetCapabilitiesRequest;
import pillar.api.agent.v1.GetCapabilitiesResponse;
import pillar.api.server.Driver;

/**
 * The agent API's gRPC endpoint. Calls not implemented here answer UNIMPLEMENTED (the generated
 * base class); volume calls arrive with the backends and the nvmet target.
 */
public final class AgentGrpcService extends AgentServiceGrpc.AgentServiceImplBase {
    /** The protocols this agent can export with. */
    public static final String NVMEOF_TCP = "nvmeof-tcp";

    private final List<BackendConfig> backends;

    public AgentGrpcService(List<BackendConfig> backends) {
        this.backends = List.copyOf(backends);
    }

    @Override
    public void getCapabilities(GetCapabilitiesRequest request, StreamObserver<GetCapabilitiesResponse> response) {
        GetCapabilitiesResponse.Builder out = GetCapabilitiesResponse.newBuilder()
                .setAgentVersion(Driver.version())
                .addProtocols(NVMEOF_TCP);
        backends.forEach(backend -> out.addBackends(backend.toProto()));
        response.onNext(out.build());
        response.onCompleted();
    }
}
