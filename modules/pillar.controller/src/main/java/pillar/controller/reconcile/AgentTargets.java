package pillar.controller.reconcile;

import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.Supplier;

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
 * plaintext only when it is none (or, without the controller's TLS files, absent). Each name verified in
 * an agent's certificate belongs to one PillarAgent, the oldest that names it: a newer one verifying the
 * same name is refused, since one storage node's certificate would answer for the other.
 * Whatever prevents it is an {@link Unresolved} with the condition reason to report.
 */
public final class AgentTargets {
    /** Older first: by creation time (none: newest), then by name. */
    private static final Comparator<PillarAgent> AGE = Comparator
            .comparing((PillarAgent a) -> created(a).orElse(Instant.MAX)).thenComparing(a -> a.getMetadata().getName());

    private final Function<String, Optional<Node>> nodes;
    private final Supplier<List<PillarAgent>> agents;
    private final boolean tlsConfigured;

    /** @param tlsConfigured whether the controller has its agents.tls files (mutual TLS possible) */
    public AgentTargets(KubernetesClient client, boolean tlsConfigured) {
        this(name -> Optional.ofNullable(client.nodes().withName(name).get()),
                () -> client.resources(PillarAgent.class).list().getItems(), tlsConfigured);
    }

    /**
     * @param nodes         the Node of a name, read now
     * @param agents        every PillarAgent, read now
     * @param tlsConfigured whether the controller has its agents.tls files (mutual TLS possible)
     */
    public AgentTargets(Function<String, Optional<Node>> nodes, Supplier<List<PillarAgent>> agents, boolean tlsConfigured) {
        this.nodes = nodes;
        this.agents = agents;
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
        AgentTarget target = new AgentTarget(host, spec.getPort(), mutual ? AgentTarget.Security.MUTUAL_TLS
                : AgentTarget.Security.PLAINTEXT, tls == null ? Optional.empty() : Optional.ofNullable(tls.getServerName()));
        if (mutual) {
            String verified = target.serverName().orElse(host).toLowerCase(Locale.ROOT);
            agents.get().stream().filter(other -> !other.getMetadata().getName().equals(agent.getMetadata().getName()))
                    .filter(other -> AGE.compare(other, agent) < 0)
                    .filter(other -> verifiedName(other).filter(verified::equals).isPresent())
                    .min(AGE).ifPresent(older -> {
                        throw new Unresolved(Reasons.SERVER_NAME_SHARED, "PillarAgent " + older.getMetadata().getName()
                                + " already verifies the name " + verified + " in its agent's certificate, so either storage"
                                + " node's certificate would answer for the other: give each PillarAgent its own tls.serverName"
                                + " and each agent a certificate for that name only (the chart names them <node>."
                                + "<tls.agentServerName>)");
                    });
        }
        return target;
    }

    /**
     * The name the controller verifies in {@code agent}'s certificate when it dials it with mutual TLS (its
     * tls.serverName, else the address dialled), lower-cased; empty when it is not dialled so or cannot be resolved.
     */
    private Optional<String> verifiedName(PillarAgent agent) {
        PillarAgentSpec spec = agent.getSpec();
        if (spec == null || spec.getTls() == null || spec.getTls().getMode() != AgentTls.Mode.SECRET) {
            return Optional.empty();
        }
        String name = spec.getTls().getServerName();
        if (name == null) {
            try {
                name = spec.getNodeName() != null ? internalIp(spec.getNodeName()) : spec.getAddress();
            } catch (Unresolved e) {
                return Optional.empty();
            }
        }
        return Optional.ofNullable(name).map(n -> n.toLowerCase(Locale.ROOT));
    }

    private static Optional<Instant> created(PillarAgent agent) {
        String at = agent.getMetadata().getCreationTimestamp();
        try {
            return Optional.ofNullable(at).map(Instant::parse);
        } catch (DateTimeParseException e) {
            return Optional.empty();
        }
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
