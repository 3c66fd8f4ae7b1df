package pillar.controller.crd;

import com.fasterxml.jackson.annotation.JsonPropertyDescription;

/** One backend as the agent reports it (GetCapabilities). */
public class AgentBackend {
    @JsonPropertyDescription("The backend's name in the agent's configuration; stores refer to it.")
    private String name;
    @JsonPropertyDescription("zfs, lvm or lvm-thin.")
    private String kind;
    @JsonPropertyDescription("The ZFS pool or the LVM volume group.")
    private String pool;
    @JsonPropertyDescription("The ZFS parent dataset below the pool, or the LVM thin pool; empty when none.")
    private String parent;

    public AgentBackend() {
    }

    public AgentBackend(String name, String kind, String pool, String parent) {
        this.name = name;
        this.kind = kind;
        this.pool = pool;
        this.parent = parent;
    }

    public String getName() {
        return name;
    }

    public void setName(String name) {
        this.name = name;
    }

    public String getKind() {
        return kind;
    }

    public void setKind(String kind) {
        this.kind = kind;
    }

    public String getPool() {
        return pool;
    }

    public void setPool(String pool) {
        this.pool = pool;
    }

    public String getParent() {
        return parent;
    }

    public void setParent(String parent) {
        this.parent = parent;
    }
}
