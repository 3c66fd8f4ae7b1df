package pillar.controller.crd;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Size;
import io.fabric8.generator.annotation.ValidationRule;

/**
 * TLS between controller and agent. {@code none}: plaintext gRPC (the agent logs a loud warning).
 * {@code secret}: mutual TLS; the agent serves the certificate of the named Secret (the chart mounts
 * it, supplied or issued by cert-manager) and the controller presents its own client certificate
 * from its {@code agents.tls} files and trusts their CA. The controller verifies the agent's
 * certificate against {@code serverName} (else the address dialled): the chart gives every storage
 * node its own, {@code <node>.<tls.agentServerName>}, so one node's certificate does not pass for another.
 */
@ValidationRule(value = "self.mode != 'secret' || has(self.secretName)", message = "tls.mode secret needs tls.secretName")
public class AgentTls {
    /** The transport security of the agent connection. */
    public enum Mode {
        @JsonProperty("none")
        NONE,
        @JsonProperty("secret")
        SECRET
    }

    @JsonPropertyDescription("none (plaintext) or secret (mutual TLS).")
    @Default("none")
    private Mode mode = Mode.NONE;

    @JsonPropertyDescription("The Secret (in the controller's namespace) with the agent's tls.crt, tls.key and ca.crt.")
    @Pattern(Grammars.DNS_SUBDOMAIN)
    @Size(max = 253)
    private String secretName;

    @JsonPropertyDescription("The name to verify in the agent's certificate, when it is not the address dialled.")
    @Pattern(Grammars.HOST)
    @Size(max = 253)
    private String serverName;

    public Mode getMode() {
        return mode;
    }

    public void setMode(Mode mode) {
        this.mode = mode;
    }

    public String getSecretName() {
        return secretName;
    }

    public void setSecretName(String secretName) {
        this.secretName = secretName;
    }

    public String getServerName() {
        return serverName;
    }

    public void setServerName(String serverName) {
        this.serverName = serverName;
    }
}
