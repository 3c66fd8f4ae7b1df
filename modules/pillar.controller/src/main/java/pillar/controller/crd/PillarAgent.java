package pillar.controller.crd;

import io.fabric8.crd.generator.annotation.AdditionalPrinterColumn;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.Plural;
import io.fabric8.kubernetes.model.annotation.ShortNames;
import io.fabric8.kubernetes.model.annotation.Version;

/**
 * Where a pillar-agent listens: on a cluster node (its InternalIP) or at an external address.
 * Condition {@value #AGENT_CONNECTED} says whether the controller reaches it, with its version,
 * backends and protocols in the status; {@value #DAMAGED_RECORDS} is true (with a Warning event) while
 * the agent reports durable records it cannot read, which an operator must restore or remove.
 */
@Group(Pillar.GROUP)
@Version(Pillar.VERSION)
// spelled out: fabric8 would otherwise pluralize the kind (regular expressions) at every instantiation
@Plural("pillaragents")
@ShortNames("pagent")
@AdditionalPrinterColumn(name = "Node", jsonPath = ".spec.nodeName", type = AdditionalPrinterColumn.Type.STRING)
@AdditionalPrinterColumn(name = "Endpoint", jsonPath = ".status.endpoint", type = AdditionalPrinterColumn.Type.STRING)
@AdditionalPrinterColumn(name = "Connected", jsonPath = ".status.conditions[?(@.type==\"AgentConnected\")].status",
        type = AdditionalPrinterColumn.Type.STRING)
@AdditionalPrinterColumn(name = "Version", jsonPath = ".status.agentVersion", type = AdditionalPrinterColumn.Type.STRING)
@AdditionalPrinterColumn(name = "Age", jsonPath = ".metadata.creationTimestamp", type = AdditionalPrinterColumn.Type.DATE)
public class PillarAgent extends CustomResource<PillarAgentSpec, PillarAgentStatus> {
    private static final long serialVersionUID = 1L;

    /** The controller reached the agent and read its capabilities. */
    public static final String AGENT_CONNECTED = "AgentConnected";
    /** The agent reports export records or fencing marks it found damaged (their volumes are refused). */
    public static final String DAMAGED_RECORDS = "DamagedRecords";
    /**
     * True (with a Warning event) while the controller, which has agent TLS files, dials this agent in
     * plaintext because its {@code tls.mode} is {@code none}: fencing tokens and keys travel in clear.
     */
    public static final String PLAINTEXT_TRANSPORT = "PlaintextTransport";
    /** The port the agent API listens on unless the spec says otherwise. */
    public static final int DEFAULT_PORT = 9500;
}
