package pillar.controller.volume.publish;

import java.util.List;
import java.util.function.Supplier;

import pillar.api.agent.v1.GetCapabilitiesRequest;
import pillar.api.agent.v1.GetCapabilitiesResponse;
import pillar.api.context.PublicationHost;
import pillar.api.context.PublishContext;
import pillar.runtime.server.CsiException;
import pillar.api.value.Nqn;
import pillar.api.value.TlsPsk;
import pillar.api.value.VolumeId;
import pillar.controller.agent.AgentClient;
import pillar.controller.agent.AgentException;
import pillar.controller.auth.HostSecrets;
import pillar.controller.auth.PublicationKeys;
import pillar.controller.auth.VolumeStageSecrets;
import pillar.controller.crd.PillarVolumeState;
import pillar.controller.crd.Reasons;
import pillar.controller.crd.VolumeExport;
import pillar.controller.volume.AgentLocator;

/**
 * DH-HMAC-CHAP and NVMe/TCP TLS for the volumes whose export requires them: the agent's kernel must
 * support each (FAILED_PRECONDITION {@value Reasons#NVME_AUTH_UNSUPPORTED},
 * {@value Reasons#NVME_TLS_UNSUPPORTED} otherwise), and each publication (node, volume) has keys of its
 * own ({@link PublicationKeys}), given to the target with AllowInitiator and to the node in its publish
 * context only. With DH-HMAC-CHAP a publication connects as a host NQN of its own ({@link PublicationHost});
 * without, as the node's own NQN. Its TLS key is the one of that host NQN ({@link #connectsAs}): both ends
 * derive the key's identity from it and the subsystem NQN. No Secret shared between nodes holds a key of a
 * publication made so.
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

    /**
     * FAILED_PRECONDITION NvmeAuthUnsupported or NvmeTlsUnsupported unless the agent's kernel can do what is
     * required; the agent is asked only when something is. An agent of a release before TLS reports no
     * nvme_tls, and is never asked for a TLS export (it would make a plaintext one).
     */
    public void requireSupported(String agentName, boolean authRequired, boolean tlsRequired) {
        if (!authRequired && !tlsRequired) {
            return;
        }
        GetCapabilitiesResponse capabilities = capabilities(agentName);
        if (authRequired && !capabilities.getNvmeAuth()) {
            throw CsiException.precondition(unsupported(agentName));
        }
        if (tlsRequired && !capabilities.getNvmeTls()) {
            throw CsiException.precondition(tlsUnsupported(agentName));
        }
    }

    /**
     * {@link #requireSupported(String, boolean, boolean)} for what the export requires; an NFS export over TLS needs
     * the agent's nfs_tls instead (FAILED_PRECONDITION NfsTlsUnsupported).
     */
    public void requireSupported(String agentName, VolumeExport export) {
        if (!export.nfs()) {
            requireSupported(agentName, export.requiresAuth(), export.requiresTls());
        } else if (export.requiresTls()) {
            requireNfsTls(agentName);
        }
    }

    /** FAILED_PRECONDITION NfsTlsUnsupported unless the agent says its nfsd can require RPC-with-TLS. */
    public void requireNfsTls(String agentName) {
        if (!capabilities(agentName).getNfsTls()) {
            throw CsiException.precondition(nfsTlsUnsupported(agentName));
        }
    }

    /** The message of an agent whose nfsd or NFS tools cannot require RPC-with-TLS (or that does not say they can). */
    static String nfsTlsUnsupported(String agentName) {
        return Reasons.NFS_TLS_UNSUPPORTED + ": the protocol requires RPC-with-TLS and agent " + agentName + " cannot require it"
                + " (Linux 6.4 and an nfs-utils with xprtsec, such as Debian 13's 2.8.3, on the storage node, and an agent of this"
                + " release): run such an agent or use a protocol with tls: off";
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

    /** The message of an agent whose kernel cannot require TLS on its ports (or that does not say it can). */
    static String tlsUnsupported(String agentName) {
        return Reasons.NVME_TLS_UNSUPPORTED + ": the protocol requires NVMe/TCP over TLS and agent " + agentName
                + " does not report a kernel whose nvmet can require it (6.7 or later with CONFIG_NVME_TARGET_TCP_TLS, and tlshd;"
                + " Debian 12's 6.1 cannot; an agent of a release before TLS never reports it): run a current agent on such a"
                + " kernel or use a protocol with tls: off";
    }

    /**
     * An agent's refusal for want of a kernel feature (its reason, never its message) as the FAILED_PRECONDITION its
     * capabilities would have given: the kernel changed since they were read. Any other failure as it is.
     */
    public static RuntimeException kernelRefusal(AgentException e, String agentName) {
        return switch (e.reason()) {
            case AGENT_ERROR_REASON_NVME_AUTH_UNSUPPORTED -> CsiException.precondition(unsupported(agentName));
            case AGENT_ERROR_REASON_NVME_TLS_UNSUPPORTED -> CsiException.precondition(tlsUnsupported(agentName));
            case AGENT_ERROR_REASON_NFS_TLS_UNSUPPORTED -> CsiException.precondition(nfsTlsUnsupported(agentName));
            default -> e;
        };
    }

    /** The host NQN the publication of {@code id} to {@code node} connects as, with DH-HMAC-CHAP. */
    static Nqn host(VolumeId id, Nqn node) {
        return PublicationHost.nqn(node.value(), id.value());
    }

    /**
     * The host NQN the publication of {@code id} to {@code node} connects as: its own with DH-HMAC-CHAP (the node
     * reads it from {@link PublishContext#HOST_NQN}), else the node's. Its TLS key is inserted under this NQN's identity.
     */
    static Nqn connectsAs(VolumeExport export, VolumeId id, Nqn node) {
        return export.requiresAuth() ? host(id, node) : node;
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
        return recorded(state, () -> keys.obtain(volume, node));
    }

    /** The publication's TLS key (recorded before it reaches the target); a damaged record is FAILED_PRECONDITION. */
    TlsPsk tlsKey(PillarVolumeState state, Nqn node) {
        return recorded(state, () -> keys.obtainTls(state.getSpec().getVolumeName(), node));
    }

    private static <T> T recorded(PillarVolumeState state, Supplier<T> obtain) {
        try {
            return obtain.get();
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
        if (state.getSpec().getExport().requiresAuth()) {
            stage.remove(state.getSpec().getVolumeName(), node);
        }
    }

    /** Deletes the volume's key record and its stage Secret. */
    public void deleted(PillarVolumeState state) {
        keys.delete(state.getSpec().getVolumeName());
        stage.delete(state.getSpec().getVolumeName());
    }
}
