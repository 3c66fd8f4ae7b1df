package pillar.controller.reconcile;

import java.util.List;
import java.util.Optional;
import java.util.function.Function;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeAddress;
import io.fabric8.kubernetes.client.KubernetesClient;
import pillar.controller.agent.AgentTarget;
import pillar.controller.crd.AgentTls;
import pillar.controller.crd.Grammars;
import pillar.controller.crd.PillarAgent;
import pillar.controller.crd.PillarAgentSpec;
import pillar.controller.crd.Reasons;
import pillar.controller.crd.SpecValidator;

/**
 * Where to dial a PillarAgent: its {@code address}, or the InternalIP of its {@code nodeName}
 * (read from the Node object), on its port, with mutual TLS when {@code tls.mode} is secret, and in
 * plaintext only when it is none (or, without the controller's TLS files, absent).
 * Whatever prevents it is an {@link Unresolved} with the condition reason to report.
 */
public final class AgentTargets {
    private final Function<String, Optional<Node>> nodes;
    private final boolean tlsConfigured;

    /** @param tlsConfigured whether the controller has its agents.tls files (mutual TLS possible) */
    public AgentTargets(KubernetesClient client, boolean tlsConfigured) {
        this(name -> Optional.ofNullable(client.nodes().withName(name).get()), tlsConfigured);
    }

    /**
     * @param nodes         the Node of a name, read now
     * @param tlsConfigured whether the controller has its agents.tls files (mutual TLS possible)
     */
    public AgentTargets(Function<String, Optional<Node>> nodes, boolean tlsConfigured) {
        this.nodes = nodes;
        this.tlsConfigured = tlsConfigured;
    }

    /** Whether the controller has its agents.tls files: a plaintext target is then the PillarAgent's explicit choice. */
    public boolean tlsConfigured() {
        return tlsConfigured;
    }

    /**
     * The agent's target, checked; never dials it. With the controller's TLS files, a PillarAgent without
     * {@code tls} is {@link Reasons#TLS_REQUIRED}: plaintext only when it says {@code tls.mode: none}.
     */
    public AgentTarget resolve(PillarAgent agent) {
        PillarAgentSpec spec = agent.getSpec();
        List<String> problems = SpecValidator.problems(spec);
        if (!problems.isEmpty()) {
            throw new Unresolved(Reasons.INVALID_SPEC, String.join("; ", problems));
        }
        String host = spec.getNodeName() != null ? internalIp(spec.getNodeName()) : spec.getAddress();
        AgentTls tls = spec.getTls();
        if (tls == null && tlsConfigured) {
            throw new Unresolved(Reasons.TLS_REQUIRED, "the controller has agents.tls files and this PillarAgent names no"
                    + " tls: set tls.mode secret (and tls.secretName) to dial it with mutual TLS, or tls.mode none to dial it"
                    + " in plaintext on purpose (fencing tokens and DH-HMAC-CHAP keys then travel in clear)");
        }
        boolean mutual = tls != null && tls.getMode() == AgentTls.Mode.SECRET;
        if (mutual && !tlsConfigured) {
            throw new Unresolved(Reasons.TLS_NOT_CONFIGURED, "tls.mode is secret, but the controller has no agents.tls"
                    + " files (cert, key, ca): install it with agent TLS enabled, or set tls.mode none");
        }
        return new AgentTarget(host, spec.getPort(), mutual ? AgentTarget.Security.MUTUAL_TLS : AgentTarget.Security.PLAINTEXT,
                tls == null ? Optional.empty() : Optional.ofNullable(tls.getServerName()));
    }

    private String internalIp(String nodeName) {
        Node node = nodes.apply(nodeName).orElse(null);
        if (node == null) {
            throw new Unresolved(Reasons.NODE_NOT_FOUND, "node " + nodeName + " does not exist");
        }
        List<NodeAddress> addresses = node.getStatus() == null || node.getStatus().getAddresses() == null
                ? List.of() : node.getStatus().getAddresses();
        return addresses.stream()
                .filter(a -> "InternalIP".equals(a.getType()) && Grammars.isIpLiteral(a.getAddress()))
                .map(NodeAddress::getAddress)
                .findFirst()
                .orElseThrow(() -> new Unresolved(Reasons.NODE_ADDRESS_UNKNOWN, "node " + nodeName
                        + " reports no InternalIP address (status.addresses)"));
    }

    /** The agent cannot be dialled; {@link #reason()} is the condition reason to report. */
    public static final class Unresolved extends RuntimeException {
        private static final long serialVersionUID = 1L;
        private final String reason;

        public Unresolved(String reason, String message) {
            super(message);
            this.reason = reason;
        }

        public String reason() {
            return reason;
        }
    }
}
