package pillar.controller.crd;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Pattern;

/**
 * NFS exports of ZFS datasets by the storage node's kernel server (nfsd), mounted by the nodes'
 * kernel NFSv4.2 client. Only the nodes a volume is published to may mount it: each is admitted
 * by its own IP address (its Node object's InternalIP), never by a subnet. The server address is
 * an IP literal and never a wildcard: it is the address the nodes mount from.
 */
public class Nfs {
    /** The NFS version the nodes mount with. */
    public enum Version {
        @JsonProperty("4.2")
        V4_2
    }

    @JsonPropertyDescription("The storage node's IP address the nodes mount from (an IP literal, not 0.0.0.0 or ::)."
            + " Unset: the agent's address, when that is an IP literal.")
    @Pattern(Grammars.IP_LITERAL)
    private String serverAddress;

    @JsonPropertyDescription("The NFS version: 4.2, the only one served.")
    @Default("\"4.2\"")
    private Version version = Version.V4_2;

    public String getServerAddress() {
        return serverAddress;
    }

    public void setServerAddress(String serverAddress) {
        this.serverAddress = serverAddress;
    }

    public Version getVersion() {
        return version;
    }

    public void setVersion(Version version) {
        this.version = version;
    }
}
