package pillar.controller.crd;

import java.util.Objects;

import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Required;

/** One node the volume is published to (ControllerPublishVolume), as the CO asked. */
public class Publication {
    @JsonPropertyDescription("The node's CSI node ID: its NVMe host NQN, the one the agent's ACL allows.")
    @Required
    private String node;

    @JsonPropertyDescription("NFS: the node's IP address the export admits (its Node's InternalIP when published); unset for NVMe-oF.")
    @Pattern(Grammars.IP_LITERAL)
    private String clientAddress;

    @JsonPropertyDescription("Whether the CO published it read-only.")
    @Required
    private Boolean readonly;

    @JsonPropertyDescription("The CSI access mode of the publication, e.g. SINGLE_NODE_WRITER.")
    @Required
    private String accessMode;

    public Publication() {
    }

    public Publication(String node, boolean readonly, String accessMode) {
        this.node = node;
        this.readonly = readonly;
        this.accessMode = accessMode;
    }

    public String getNode() {
        return node;
    }

    public void setNode(String node) {
        this.node = node;
    }

    public String getClientAddress() {
        return clientAddress;
    }

    public void setClientAddress(String clientAddress) {
        this.clientAddress = clientAddress;
    }

    /** This publication with the client address an NFS export admits for its node. */
    public Publication withClientAddress(String address) {
        Publication p = new Publication(node, readonly, accessMode);
        p.clientAddress = address;
        return p;
    }

    public Boolean getReadonly() {
        return readonly;
    }

    public void setReadonly(Boolean readonly) {
        this.readonly = readonly;
    }

    public String getAccessMode() {
        return accessMode;
    }

    public void setAccessMode(String accessMode) {
        this.accessMode = accessMode;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Publication p && Objects.equals(node, p.node) && Objects.equals(readonly, p.readonly)
                && Objects.equals(accessMode, p.accessMode);
    }

    @Override
    public int hashCode() {
        return Objects.hash(node, readonly, accessMode);
    }

    @Override
    public String toString() {
        return node + (Boolean.TRUE.equals(readonly) ? " (ro, " : " (rw, ") + accessMode + ")";
    }
}
