package pillar.controller.agent;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import pillar.api.agent.v1.Backend;
import pillar.api.agent.v1.BackendKind;
import pillar.api.agent.v1.GetCapabilitiesRequest;
import pillar.api.agent.v1.GetCapabilitiesResponse;
import pillar.api.agent.v1.GetCapacityRequest;
import pillar.api.agent.v1.GetCapacityResponse;

/**
 * A stateful stand-in for the agents of a cluster: each endpoint ({@code host:port}) has an agent
 * that is up or down, with its version, backends and their capacity. Calls to an endpoint with no
 * agent, or a stopped one, fail as a real unreachable agent does.
 */
public final class FakeAgentClient implements AgentClient {
    private final Map<String, FakeAgent> agents = new HashMap<>();
    private final List<String> calls = new ArrayList<>();

    /** The agent at that endpoint, created (up, no backends) on first use. */
    public synchronized FakeAgent agent(String host, int port) {
        return agents.computeIfAbsent(AgentTarget.plaintext(host, port).endpoint(), e -> new FakeAgent());
    }

    /** Every call so far, as {@code "GetCapacity 10.0.0.1:9500 fast"}. */
    public synchronized List<String> calls() {
        return List.copyOf(calls);
    }

    @Override
    public GetCapabilitiesResponse getCapabilities(AgentTarget target, GetCapabilitiesRequest request) {
        FakeAgent agent = reach(target, "GetCapabilities", "");
        synchronized (agent) {
            return GetCapabilitiesResponse.newBuilder().setAgentVersion(agent.version)
                    .addAllBackends(agent.backends.values()).addProtocols("nvmeof-tcp").build();
        }
    }

    @Override
    public GetCapacityResponse getCapacity(AgentTarget target, GetCapacityRequest request) {
        FakeAgent agent = reach(target, "GetCapacity", request.getBackend());
        synchronized (agent) {
            long[] capacity = agent.capacity.get(request.getBackend());
            if (!agent.backends.containsKey(request.getBackend())) {
                throw new AgentException(AgentException.Kind.INVALID_ARGUMENT, "GetCapacity", target,
                        "INVALID_ARGUMENT: backend: '" + request.getBackend() + "' is not configured on this agent");
            }
            return GetCapacityResponse.newBuilder().setTotalBytes(capacity == null ? 0 : capacity[0])
                    .setAvailableBytes(capacity == null ? 0 : capacity[1]).build();
        }
    }

    private FakeAgent reach(AgentTarget target, String rpc, String argument) {
        FakeAgent agent;
        synchronized (this) {
            calls.add((rpc + " " + target.endpoint() + " " + argument).trim());
            agent = agents.get(target.endpoint());
        }
        if (agent == null || !agent.isUp()) {
            throw new AgentException(AgentException.Kind.UNREACHABLE, rpc, target, "UNAVAILABLE: connection refused");
        }
        return agent;
    }

    /** One fake agent; every method returns it, for chaining. */
    public static final class FakeAgent {
        private boolean up = true;
        private String version = "0.1.0-test";
        private final Map<String, Backend> backends = new LinkedHashMap<>();
        private final Map<String, long[]> capacity = new HashMap<>();

        public synchronized boolean isUp() {
            return up;
        }

        public synchronized FakeAgent up() {
            up = true;
            return this;
        }

        public synchronized FakeAgent down() {
            up = false;
            return this;
        }

        public synchronized FakeAgent version(String version) {
            this.version = version;
            return this;
        }

        /** Configures a backend (replacing one of that name); its capacity starts at 0. */
        public synchronized FakeAgent backend(String name, BackendKind kind, String pool, String parent) {
            backends.put(name, Backend.newBuilder().setName(name).setKind(kind).setPool(pool).setParent(parent).build());
            return this;
        }

        public synchronized FakeAgent capacity(String backend, long total, long available) {
            capacity.put(backend, new long[] {total, available});
            return this;
        }
    }
}
