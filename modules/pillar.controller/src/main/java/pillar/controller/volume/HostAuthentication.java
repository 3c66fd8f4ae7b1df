package pillar.controller.volume;

import java.util.logging.Logger;

import io.fabric8.kubernetes.client.KubernetesClientException;
import pillar.api.agent.v1.AllowInitiatorRequest;
import pillar.api.agent.v1.GetCapabilitiesRequest;
import pillar.runtime.server.CsiException;
import pillar.runtime.server.VolumeLocks;
import pillar.api.value.Nqn;
import pillar.api.value.VolumeId;
import pillar.controller.agent.AgentClient;
import pillar.controller.agent.AgentException;
import pillar.controller.agent.AgentTarget;
import pillar.controller.auth.HostSecrets;
import pillar.controller.auth.NodeSecrets;
import pillar.controller.auth.VolumeStageSecrets;
import pillar.controller.crd.PillarVolumeState;
import pillar.controller.crd.Publication;
import pillar.controller.crd.Reasons;

/**
 * DH-HMAC-CHAP for the volumes whose export requires it: the agent's kernel must support it
 * (FAILED_PRECONDITION {@value Reasons#NVME_AUTH_UNSUPPORTED} otherwise), each node's secrets come
 * from {@link NodeSecrets}, and the per-volume stage Secret holds the secrets of the nodes the
 * volume is published to.
 *
 * <p>Rotation: the stage Secret of a volume doubles as the record of what its target was given
 * for a node (it is written only after AllowInitiator succeeded). At every publish to a node, each
 * other auth volume published there whose stage Secret holds other secrets than the node's
 * current ones gets AllowInitiator again (which replaces the host's keys) and a rewritten stage
 * Secret. So deleting a node's Secret rotates it everywhere at its next publish; a volume busy or
 * unreachable then is caught up at the publish after.
 */
final class HostAuthentication {
    private static final Logger LOG = Logger.getLogger(HostAuthentication.class.getName());

    private final VolumeStates states;
    private final AgentClient agents;
    private final AgentLocator locator;
    private final VolumeLocks locks;
    private final NodeSecrets nodes;
    private final VolumeStageSecrets stage;

    HostAuthentication(VolumeStates states, AgentClient agents, AgentLocator locator, VolumeLocks locks,
                       NodeSecrets nodes, VolumeStageSecrets stage) {
        this.states = states;
        this.agents = agents;
        this.locator = locator;
        this.locks = locks;
        this.nodes = nodes;
        this.stage = stage;
    }

    /** FAILED_PRECONDITION NvmeAuthUnsupported unless the agent's kernel can authenticate hosts. */
    void requireSupported(String agentName) {
        AgentTarget target = locator.target(agentName);
        if (!agents.getCapabilities(target, GetCapabilitiesRequest.getDefaultInstance()).getNvmeAuth()) {
            throw CsiException.precondition(unsupported(agentName));
        }
    }

    /** The message of an agent without nvmet authentication. */
    static String unsupported(String agentName) {
        return Reasons.NVME_AUTH_UNSUPPORTED + ": the protocol requires NVMe in-band authentication and agent " + agentName
                + "'s kernel has no nvmet authentication (CONFIG_NVME_TARGET_AUTH; Debian 12's 6.1 kernel lacks it):"
                + " run the agent on a kernel with it (e.g. 6.12 from bookworm-backports) or use a protocol with auth: off";
    }

    /** The node's secrets, generated on first need. */
    HostSecrets secrets(Nqn node) {
        return nodes.obtain(node);
    }

    /** Records that the volume's target was given these secrets for the node (its stage Secret). */
    void staged(PillarVolumeState state, Nqn node, HostSecrets secrets) {
        stage.put(state.getSpec().getVolumeName(), node, secrets);
    }

    /** Removes the node's secrets from the volume's stage Secret. */
    void unstaged(PillarVolumeState state, Nqn node) {
        stage.remove(state.getSpec().getVolumeName(), node);
    }

    /** Deletes the volume's stage Secret. */
    void deleted(PillarVolumeState state) {
        stage.delete(state.getSpec().getVolumeName());
    }

    /** Brings every other auth volume published to the node to the node's current secrets (see the class comment). */
    void catchUp(VolumeId published, Nqn node, HostSecrets current) {
        for (PillarVolumeState listed : states.list()) {
            VolumeId id = VolumeId.of(listed.getMetadata().getName());
            if (id.equals(published) || !behind(listed, node, current)) {
                continue;
            }
            try {
                locks.run(id, "bringing its host secrets up to date", () -> {
                    PillarVolumeState other = states.get(id).orElse(null);
                    if (other == null || !behind(other, node, current)) {
                        return null;
                    }
                    agents.allowInitiator(locator.target(other.getSpec().getAgent()), AllowInitiatorRequest.newBuilder()
                            .setToken(Records.token(other).toProto()).setVolumeId(id.value()).setHostNqn(node.value())
                            .setAuth(current.toProto()).build());
                    staged(other, node, current);
                    return null;
                });
                LOG.info(() -> "volume " + id + ": the target was given node " + node + "'s new DH-HMAC-CHAP secrets");
            } catch (CsiException | AgentException | VolumeRecords.Conflict | KubernetesClientException e) {
                LOG.warning(() -> "volume " + id + ": node " + node + "'s new DH-HMAC-CHAP secrets could not be given to its"
                        + " target yet (retried at the node's next publish): " + e.getMessage());
            }
        }
    }

    /** Whether an auth volume is published to the node and its stage Secret holds other secrets than these. */
    private boolean behind(PillarVolumeState state, Nqn node, HostSecrets current) {
        return state.getSpec() != null && state.getSpec().getExport() != null && state.getSpec().getExport().requiresAuth()
                && Records.publications(state).stream().map(Publication::getNode).anyMatch(node.value()::equals)
                && stage.get(state.getSpec().getVolumeName(), node).filter(current::equals).isEmpty();
    }
}
