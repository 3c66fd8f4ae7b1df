package pillar.controller.volume.publish;

import java.util.List;

import pillar.api.agent.v1.GetCapabilitiesRequest;
import pillar.api.context.PublicationHost;
import pillar.api.context.PublishContext;
import pillar.runtime.server.CsiException;
import pillar.api.value.Nqn;
import pillar.api.value.VolumeId;
import pillar.controller.agent.AgentClient;
import pillar.controller.auth.HostSecrets;
import pillar.controller.auth.PublicationKeys;
import pillar.controller.auth.VolumeStageSecrets;
import pillar.controller.crd.PillarVolumeState;
import pillar.controller.crd.Reasons;
import pillar.controller.volume.AgentLocator;

/**
 * DH-HMAC-CHAP for the volumes whose export requires it: the agent's kernel must support it
 * (FAILED_PRECONDITION {@value Reasons#NVME_AUTH_UNSUPPORTED} otherwise), and each publication (node,
 * volume) connects as a host NQN of its own ({@link PublicationHost}) with keys of its own
 * ({@link PublicationKeys}), given to the target with AllowInitiator and to the node in its publish
 * context only. No Secret shared between nodes holds a key of a publication made so.
 *
 * <p>Publications made by a version before (the node's own NQN, one key pair per node kept in the
 * volume's stage Secret) keep working as they are: their grant and their stage-Secret keys stay until
 * their unpublish, which withdraws both the publication's NQN and the node's; a repeat or a new
 * publish of such a node gets per-publication keys. Nothing rewrites a key a live publication uses.
 */
public final class HostAuthentication {
    private final AgentClient agents;
    private final AgentLocator locator;
    private final PublicationKeys keys;
    private final VolumeStageSecrets stage;

    public HostAuthentication(AgentClient agents, AgentLocator locator, PublicationKeys keys, VolumeStageSecrets stage) {
        this.agents = agents;
        this.locator = locator;
        this.keys = keys;
        this.stage = stage;
    }

    /** FAILED_PRECONDITION NvmeAuthUnsupported unless the agent's kernel can authenticate hosts. */
    public void requireSupported(String agentName) {
        if (!capabilities(agentName).getNvmeAuth()) {
            throw CsiException.precondition(unsupported(agentName));
        }
    }

    /** What the agent says it can do now (a call to it). */
    public pillar.api.agent.v1.GetCapabilitiesResponse capabilities(String agentName) {
        return agents.getCapabilities(locator.target(agentName), GetCapabilitiesRequest.getDefaultInstance());
    }

    /** The message of an agent without nvmet authentication. */
    static String unsupported(String agentName) {
        return Reasons.NVME_AUTH_UNSUPPORTED + ": the protocol requires NVMe in-band authentication and agent " + agentName
                + "'s kernel has no nvmet authentication (CONFIG_NVME_TARGET_AUTH; Debian 12's 6.1 kernel lacks it):"
                + " run the agent on a kernel with it (e.g. 6.12 from bookworm-backports) or use a protocol with auth: off";
    }

    /** The host NQN the publication of {@code id} to {@code node} connects as. */
    static Nqn host(VolumeId id, Nqn node) {
        return PublicationHost.nqn(node.value(), id.value());
    }

    /**
     * The host NQNs a target may admit for a publication to {@code node}: the publication's own, and the
     * node's for a publication made before per-publication keys.
     */
    public static List<String> grantees(VolumeId id, String node) {
        return List.of(PublicationHost.nqn(node, id.value()).value(), node);
    }

    /**
     * The host NQNs to withdraw at the unpublish from {@code node}: the publication's own, and the node's
     * while the stage Secret still holds the node's keys of a publication made before (each withdrawal
     * relinks the target's port, so none is made for nothing).
     */
    List<String> withdrawn(PillarVolumeState state, VolumeId id, String node) {
        String own = host(id, Nqn.of(node)).value();
        return madeBefore(state, Nqn.of(node)) ? List.of(own, node) : List.of(own);
    }

    /**
     * Whether {@code node} holds a publication of this volume made before per-publication keys: the stage
     * Secret still has its node keys, and the target admits (and the node may be connected as) the node's
     * own NQN until that publication's unpublish.
     */
    boolean madeBefore(PillarVolumeState state, Nqn node) {
        return stage.get(state.getSpec().getVolumeName(), node).isPresent();
    }

    /**
     * The publication's keys (recorded before they reach the target), and the stage Secret kubelet wants
     * to exist; a damaged record is FAILED_PRECONDITION and replaces nothing.
     */
    HostSecrets keys(PillarVolumeState state, Nqn node) {
        String volume = state.getSpec().getVolumeName();
        stage.ensure(volume);
        try {
            return keys.obtain(volume, node);
        } catch (PublicationKeys.MalformedKeysException e) {
            throw CsiException.precondition("volume " + state.getMetadata().getName() + " cannot be published: " + e.getMessage());
        }
    }

    /** The publish context entries of an authenticated publication: its host NQN and its keys. */
    static void putContext(java.util.Map<String, String> context, VolumeId id, Nqn node, HostSecrets secrets) {
        context.put(PublishContext.HOST_NQN, host(id, node).value());
        context.put(PublishContext.DHCHAP_SECRET, secrets.hostKey());
        context.put(PublishContext.DHCHAP_CTRL_SECRET, secrets.controllerKey());
    }

    /** Forgets the publication's keys, and the node's keys of a publication made before, once its grants are withdrawn. */
    void unstaged(PillarVolumeState state, Nqn node) {
        keys.remove(state.getSpec().getVolumeName(), node);
        stage.remove(state.getSpec().getVolumeName(), node);
    }

    /** Deletes the volume's key record and its stage Secret. */
    public void deleted(PillarVolumeState state) {
        keys.delete(state.getSpec().getVolumeName());
        stage.delete(state.getSpec().getVolumeName());
    }
}
