package pillar.controller.auth;

import pillar.api.agent.v1.HostAuth;

/**
 * One node's DH-HMAC-CHAP secrets: the host's (the node proves it knows it) and the controller's
 * (the target proves it, bidirectional). Both are well-formed {@link DhchapKey}s. Prints redacted.
 */
public record HostSecrets(String hostKey, String controllerKey) {
    /** The hash every target is told to use: SHA-256, which every nvmet with authentication has. */
    public static final String HASH = "hmac(sha256)";
    /**
     * The Diffie-Hellman group: ffdhe2048, the smallest FFDHE group, adds forward secrecy at the
     * lowest cost per connect; every kernel with nvmet authentication supports it.
     */
    public static final String DH_GROUP = "ffdhe2048";

    public HostSecrets {
        if (!DhchapKey.isWellFormed(hostKey) || !DhchapKey.isWellFormed(controllerKey)) {
            throw new IllegalArgumentException("DH-HMAC-CHAP secrets must be DHHC-1 secrets (values not shown)");
        }
    }

    /** What AllowInitiator carries. */
    public HostAuth toProto() {
        return HostAuth.newBuilder().setHostKey(hostKey).setControllerKey(controllerKey).setHash(HASH).setDhGroup(DH_GROUP)
                .build();
    }

    @Override
    public String toString() {
        return "HostSecrets[redacted]";
    }
}
