package pillar.controller.crd;

import java.util.ArrayList;
import java.util.List;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;

/** What the controller last learnt of the agent. Replaced whole on each write. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class PillarAgentStatus {
    @JsonPropertyDescription("The metadata.generation this status was computed from.")
    private Long observedGeneration;
    @JsonPropertyDescription("The endpoint dialled, host:port.")
    private String endpoint;
    @JsonPropertyDescription("The version the agent reported.")
    private String agentVersion;
    @JsonPropertyDescription("The backends configured on the agent.")
    private List<AgentBackend> backends = new ArrayList<>();
    @JsonPropertyDescription("The protocols the agent can export with, e.g. nvmeof-tcp.")
    private List<String> protocols = new ArrayList<>();
    @JsonPropertyDescription("Whether the agent's kernel can authenticate hosts in-band (DH-HMAC-CHAP); unset: not reported yet.")
    private Boolean nvmeAuth;
    @JsonPropertyDescription("Whether the agent's kernel can require NVMe/TCP over TLS 1.3 on its ports; unset: not reported yet"
            + " (false from an agent of a release before TLS).")
    private Boolean nvmeTls;
    @JsonPropertyDescription("Whether the agent's nfsd and NFS tools can require RPC-with-TLS on an export; unset: not reported"
            + " yet (false from an agent of a release before NFS over TLS).")
    private Boolean nfsTls;
    @JsonPropertyDescription("AgentConnected.")
    private List<Condition> conditions = new ArrayList<>();

    public Long getObservedGeneration() {
        return observedGeneration;
    }

    public void setObservedGeneration(Long observedGeneration) {
        this.observedGeneration = observedGeneration;
    }

    public Boolean getNvmeAuth() {
        return nvmeAuth;
    }

    public void setNvmeAuth(Boolean nvmeAuth) {
        this.nvmeAuth = nvmeAuth;
    }

    public Boolean getNvmeTls() {
        return nvmeTls;
    }

    public void setNvmeTls(Boolean nvmeTls) {
        this.nvmeTls = nvmeTls;
    }

    public Boolean getNfsTls() {
        return nfsTls;
    }

    public void setNfsTls(Boolean nfsTls) {
        this.nfsTls = nfsTls;
    }

    public String getEndpoint() {
        return endpoint;
    }

    public void setEndpoint(String endpoint) {
        this.endpoint = endpoint;
    }

    public String getAgentVersion() {
        return agentVersion;
    }

    public void setAgentVersion(String agentVersion) {
        this.agentVersion = agentVersion;
    }

    public List<AgentBackend> getBackends() {
        return backends;
    }

    public void setBackends(List<AgentBackend> backends) {
        this.backends = backends;
    }

    public List<String> getProtocols() {
        return protocols;
    }

    public void setProtocols(List<String> protocols) {
        this.protocols = protocols;
    }

    public List<Condition> getConditions() {
        return conditions;
    }

    public void setConditions(List<Condition> conditions) {
        this.conditions = conditions;
    }
}
