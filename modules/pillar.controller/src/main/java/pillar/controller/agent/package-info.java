/**
 * The controller's side of the agent API: the {@link pillar.controller.agent.AgentClient} port,
 * where an agent is ({@link pillar.controller.agent.AgentTarget}), the small typed error every call
 * fails with ({@link pillar.controller.agent.AgentException}), and the gRPC adapter
 * ({@link pillar.controller.agent.GrpcAgentClient}). Nothing here knows Kubernetes.
 */
package pillar.controller.agent;
