package pillar.agent.nfs;

/**
 * Which RPC transports an export entry admits (RFC 9289 RPC-with-TLS; the kernel asks {@code tlshd} for the
 * handshake, the server presenting its x.509 certificate). {@link #ANY}: no {@code xprtsec} option, nfsd's default,
 * plaintext and TLS alike (every entry made before the option). {@link #TLS}: {@code xprtsec=tls:mtls}, TLS with or
 * without a client certificate, and a plaintext mount is refused (mount(2): EPERM); {@code tls} alone would refuse a client
 * that presents one. {@link #OTHER} is only ever read: an entry whose {@code xprtsec} another tool set.
 */
public enum NfsTransport {
    ANY(""),
    TLS("tls:mtls"),
    OTHER("?");

    private final String modes;

    NfsTransport(String modes) {
        this.modes = modes;
    }

    /** The export option: empty for {@link #ANY}, {@code xprtsec=tls:mtls} for {@link #TLS}; none for {@link #OTHER}. */
    public String option() {
        if (this == OTHER) {
            throw new IllegalStateException("an xprtsec this agent did not write is never exported");
        }
        return modes.isEmpty() ? "" : "xprtsec=" + modes;
    }

    /** The transport of an {@code xprtsec} value as {@code exportfs -v} lists it; null (no option): {@link #ANY}. */
    public static NfsTransport ofListed(String modes) {
        if (modes == null) {
            return ANY;
        }
        return modes.equals(TLS.modes) || modes.equals("mtls:tls") ? TLS : OTHER;
    }

    @Override
    public String toString() {
        return switch (this) {
            case ANY -> "any transport";
            case TLS -> "RPC-with-TLS only";
            case OTHER -> "another xprtsec";
        };
    }
}
