package pillar.controller.crd;

import java.util.Objects;

import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Max;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Required;

/**
 * How a volume is exported, frozen at creation from its PillarProtocol (or recorded once by an
 * operator): the protocol (unset on states recorded before NFS existed: NVMe-oF/TCP), where the
 * target listens, whether only published hosts may connect, whether they must authenticate in-band
 * (DH-HMAC-CHAP; unset: false), whether they must connect over TLS 1.3 (unset: false, as on every state
 * recorded before TLS), and the address initiators dial. An NFS export listens on the
 * server address, port 2049, always with its client list (aclEnabled true), never authenticated, with root
 * on the nodes squashed when rootSquash is true (unset: false, no_root_squash), and over RPC-with-TLS only
 * when tlsRequired is true.
 */
public class VolumeExport {
    @JsonPropertyDescription("nvmeofTcp or nfs; unset: nvmeofTcp.")
    private ProtocolKind protocol;

    @JsonPropertyDescription("The storage node's IP address the target listens on.")
    @Required
    @Pattern(Grammars.IP_LITERAL)
    private String bindAddress;

    @JsonPropertyDescription("The target's TCP port.")
    @Required
    @Min(1)
    @Max(65535)
    private Integer port;

    @JsonPropertyDescription("Only the hosts the volume is published to may connect (true), or any host (false).")
    @Required
    private Boolean aclEnabled;

    @JsonPropertyDescription("The IP address nodes connect to: the bind address, or the agent's address when it binds all.")
    @Required
    @Pattern(Grammars.IP_LITERAL)
    private String traddr;

    @JsonPropertyDescription("Every host must authenticate in-band with its DH-HMAC-CHAP secrets (true); unset: false.")
    private Boolean authRequired;

    @JsonPropertyDescription("NVMe-oF/TCP: every host must connect over TLS 1.3 with its pre-shared key; NFS: every node must"
            + " mount over RPC-with-TLS (true); unset: false.")
    private Boolean tlsRequired;

    @JsonPropertyDescription("NFS: root on the nodes acts as the anonymous uid 65534 (root_squash, true); unset: false.")
    private Boolean rootSquash;

    public VolumeExport() {
    }

    public VolumeExport(String bindAddress, int port, boolean aclEnabled, String traddr) {
        this.bindAddress = bindAddress;
        this.port = port;
        this.aclEnabled = aclEnabled;
        this.traddr = traddr;
    }

    public String getBindAddress() {
        return bindAddress;
    }

    public void setBindAddress(String bindAddress) {
        this.bindAddress = bindAddress;
    }

    public Integer getPort() {
        return port;
    }

    public void setPort(Integer port) {
        this.port = port;
    }

    public Boolean getAclEnabled() {
        return aclEnabled;
    }

    public void setAclEnabled(Boolean aclEnabled) {
        this.aclEnabled = aclEnabled;
    }

    public Boolean getAuthRequired() {
        return authRequired;
    }

    public void setAuthRequired(Boolean authRequired) {
        this.authRequired = authRequired;
    }

    public Boolean getTlsRequired() {
        return tlsRequired;
    }

    public void setTlsRequired(Boolean tlsRequired) {
        this.tlsRequired = tlsRequired;
    }

    /** Whether hosts must connect over TLS (an unset value is false). */
    public boolean requiresTls() {
        return Boolean.TRUE.equals(tlsRequired);
    }

    /**
     * Whether each publication has keys of its own, made by the controller (DH-HMAC-CHAP, TLS or both):
     * what the controller-only key Secret of the volume holds. NFS over TLS has none: the server's certificate
     * is the host's tlshd's.
     */
    public boolean hasPublicationKeys() {
        return !nfs() && (requiresAuth() || requiresTls());
    }

    public Boolean getRootSquash() {
        return rootSquash;
    }

    public void setRootSquash(Boolean rootSquash) {
        this.rootSquash = rootSquash;
    }

    /** Whether root on the nodes is squashed (an unset value is false). */
    public boolean squashesRoot() {
        return Boolean.TRUE.equals(rootSquash);
    }

    public ProtocolKind getProtocol() {
        return protocol;
    }

    public void setProtocol(ProtocolKind protocol) {
        this.protocol = protocol == ProtocolKind.NVMEOF_TCP ? null : protocol;
    }

    /** The protocol, an unset one being NVMe-oF/TCP. */
    public ProtocolKind protocolKind() {
        return protocol == null ? ProtocolKind.NVMEOF_TCP : protocol;
    }

    /** Whether the volume is an NFS export. */
    public boolean nfs() {
        return protocolKind() == ProtocolKind.NFS;
    }

    /** Whether hosts must authenticate (an unset value is false). */
    public boolean requiresAuth() {
        return Boolean.TRUE.equals(authRequired);
    }

    public String getTraddr() {
        return traddr;
    }

    public void setTraddr(String traddr) {
        this.traddr = traddr;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof VolumeExport e && protocolKind() == e.protocolKind() && Objects.equals(bindAddress, e.bindAddress) && Objects.equals(port, e.port)
                && Objects.equals(aclEnabled, e.aclEnabled) && Objects.equals(traddr, e.traddr)
                && requiresAuth() == e.requiresAuth() && requiresTls() == e.requiresTls() && squashesRoot() == e.squashesRoot();
    }

    @Override
    public int hashCode() {
        return Objects.hash(protocolKind(), bindAddress, port, aclEnabled, traddr, requiresAuth(), requiresTls(), squashesRoot());
    }

    @Override
    public String toString() {
        return (nfs() ? "protocol=nfs," : "") + "bindAddress=" + bindAddress + ",port=" + port + ",aclEnabled=" + aclEnabled + ",traddr=" + traddr + (requiresAuth() ? ",authRequired=true" : "")
                + (requiresTls() ? ",tlsRequired=true" : "")
                + (squashesRoot() ? ",rootSquash=true" : "");
    }
}
