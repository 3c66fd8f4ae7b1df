package pillar.controller.crd;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Pattern;

/**
 * NFS exports of ZFS datasets by the storage node's kernel server (nfsd), mounted by the nodes'
 * kernel NFSv4.2 client. Only the nodes a volume is published to may mount it: each is admitted
 * by its own IP address (its Node object's InternalIP), never by a subnet. The server address is
 * an IP literal and never a wildcard: it is the address the nodes mount from. {@code squash} says what
 * the server makes of root on those nodes and {@code tls} whether they must mount over RPC-with-TLS, both frozen
 * on each volume at its creation (docs/security.md).
 */
public class Nfs {
    /** The NFS version the nodes mount with. */
    public enum Version {
        @JsonProperty("4.2")
        V4_2
    }

    /** What nfsd makes of root (uid 0) on a node the volume is published to. */
    public enum Squash {
        /** Root on the node is root on the volume (pods running as root, kubelet's fsGroup ownership change). */
        @JsonProperty("no_root_squash")
        NO_ROOT_SQUASH,
        /** Root on the node acts as the anonymous uid 65534; every other uid passes as it is. */
        @JsonProperty("root_squash")
        ROOT_SQUASH
    }

    @JsonPropertyDescription("The storage node's IP address the nodes mount from (an IP literal, not 0.0.0.0 or ::)."
            + " Unset: the agent's address, when that is an IP literal.")
    @Pattern(Grammars.IP_LITERAL)
    private String serverAddress;

    @JsonPropertyDescription("The NFS version: 4.2, the only one served.")
    @Default("\"4.2\"")
    private Version version = Version.V4_2;

    @JsonPropertyDescription("no_root_squash: root on a node is root on the volume (what pods running as root and"
            + " kubelet's fsGroup ownership change need). root_squash: root on a node acts as the anonymous uid 65534, so"
            + " it cannot write a root-owned file; other uids pass as they are (NFS trusts the node's uids). Fixed on"
            + " each volume when it is created; root_squash needs an agent of this release or newer (else CreateVolume is refused).")
    @Default("no_root_squash")
    private Squash squash = Squash.NO_ROOT_SQUASH;

    @JsonPropertyDescription("required: the nodes mount over RPC-with-TLS (xprtsec=tls) and the server refuses a plaintext"
            + " mount; the storage node's tlshd presents a certificate for serverAddress that the nodes' tlshd trust"
            + " (docs/nfs.md). Needs Linux 6.4 and nfs-utils with xprtsec on the storage node (Debian 13), 6.5 and tlshd on the"
            + " nodes. off: plaintext. Fixed on each volume when it is created.")
    @Default("off")
    private TlsMode tls = TlsMode.OFF;

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

    public Squash getSquash() {
        return squash;
    }

    public void setSquash(Squash squash) {
        this.squash = squash;
    }

    public TlsMode getTls() {
        return tls;
    }

    public void setTls(TlsMode tls) {
        this.tls = tls;
    }

    /** Whether the nodes must mount over RPC-with-TLS (an unset value is off). */
    public boolean tlsRequired() {
        return tls == TlsMode.REQUIRED;
    }

    /** Whether root on the nodes is squashed (an unset value is not). */
    public boolean rootSquash() {
        return squash == Squash.ROOT_SQUASH;
    }
}
