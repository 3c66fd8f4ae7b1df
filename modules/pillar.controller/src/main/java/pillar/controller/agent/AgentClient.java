package pillar.controller.agent;

import pillar.api.agent.v1.GetCapabilitiesRequest;
import pillar.api.agent.v1.GetCapabilitiesResponse;
import pillar.api.agent.v1.GetCapacityRequest;
import pillar.api.agent.v1.GetCapacityResponse;

/**
 * The agent API as the controller calls it: one method per RPC of {@code pillar.agent.v1.AgentService},
 * taking the agent to call and the RPC's request, answering its response.
 *
 * <p>Contract of every method:
 * <ul>
 *   <li>it returns within its deadline: no call waits on an agent for ever;</li>
 *   <li>it fails only with {@link AgentException}, whose {@link AgentException.Kind} says what the
 *       agent (or the network) answered; the caller decides what to do with it;</li>
 *   <li>reads (GetCapabilities, GetCapacity, later ListVolumes and ListExports) may be retried by
 *       the implementation when the agent was unreachable; a call that changes anything is sent
 *       once, and its caller retries it through its own idempotent, fenced logic.</li>
 * </ul>
 * Adding an RPC here means adding it to {@link GrpcAgentClient} and to the tests' stateful fake.
 */
public interface AgentClient {
    /** The agent's version, its configured backends and its protocols. A read. */
    GetCapabilitiesResponse getCapabilities(AgentTarget agent, GetCapabilitiesRequest request);

    /**
     * Total and available bytes of one backend. A read. A backend the agent does not have fails
     * with {@link AgentException.Kind#INVALID_ARGUMENT}.
     */
    GetCapacityResponse getCapacity(AgentTarget agent, GetCapacityRequest request);
}
