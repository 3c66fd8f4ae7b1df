package pillar.controller.crd;

import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Max;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Size;
import io.fabric8.generator.annotation.ValidationRule;

/** Where the agent is: exactly one of {@code nodeName} and {@code address}. */
@ValidationRule(value = "has(self.nodeName) != has(self.address)",
        message = "set exactly one of nodeName (an agent on a cluster node) and address (an agent outside the cluster)")
public class PillarAgentSpec {
    @JsonPropertyDescription("The cluster node the agent runs on (hostNetwork); the controller dials its InternalIP.")
    @Pattern(Grammars.DNS_SUBDOMAIN)
    @Size(max = 253)
    private String nodeName;

    @JsonPropertyDescription("The IP address or DNS name of an agent outside the cluster.")
    @Pattern(Grammars.HOST)
    @Size(max = 253)
    private String address;

    @JsonPropertyDescription("The TCP port of the agent API.")
    @Default("9500")
    @Min(1)
    @Max(65535)
    private Integer port = PillarAgent.DEFAULT_PORT;

    @JsonPropertyDescription("How the controller secures its connection to the agent.")
    private AgentTls tls;

    public String getNodeName() {
        return nodeName;
    }

    public void setNodeName(String nodeName) {
        this.nodeName = nodeName;
    }

    public String getAddress() {
        return address;
    }

    public void setAddress(String address) {
        this.address = address;
    }

    public Integer getPort() {
        return port;
    }

    public void setPort(Integer port) {
        this.port = port;
    }

    public AgentTls getTls() {
        return tls;
    }

    public void setTls(AgentTls tls) {
        this.tls = tls;
    }
}
