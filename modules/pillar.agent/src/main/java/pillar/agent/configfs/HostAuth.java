package pillar.agent.configfs;

import java.util.List;
import java.util.Optional;

import pillar.api.value.DhchapSecret;
import pillar.api.value.InvalidValueException;

/**
 * NVMe in-band authentication (DH-HMAC-CHAP) of one host, as the target's {@code hosts/<nqn>/dhchap_*}
 * attributes hold it. The kernel keeps it per host entry, which every subsystem that admits the host
 * shares: the last one written is the host's. {@link #toString()} never shows a secret.
 *
 * @param hostKey       {@code dhchap_key}: the host proves it knows it
 * @param controllerKey {@code dhchap_ctrl_key}: the target proves it knows it (bidirectional); empty:
 *                      one-way
 * @param hash          {@code dhchap_hash}, one of {@link #HASHES}
 * @param dhGroup       {@code dhchap_dhgroup}, one of {@link #DH_GROUPS}
 */
public record HostAuth(DhchapSecret hostKey, Optional<DhchapSecret> controllerKey, String hash, String dhGroup) {
    /** The names nvmet's {@code dhchap_hash} accepts; the first is the kernel's default for a new host entry. */
    public static final List<String> HASHES = List.of("hmac(sha256)", "hmac(sha384)", "hmac(sha512)");
    /** The names nvmet's {@code dhchap_dhgroup} accepts; the first is the kernel's default for a new host entry. */
    public static final List<String> DH_GROUPS = List.of("null", "ffdhe2048", "ffdhe3072", "ffdhe4096", "ffdhe6144",
            "ffdhe8192");

    public HostAuth {
        if (!HASHES.contains(hash)) {
            throw new InvalidValueException("auth.hash", "must be one of " + HASHES);
        }
        if (!DH_GROUPS.contains(dhGroup)) {
            throw new InvalidValueException("auth.dh_group", "must be one of " + DH_GROUPS);
        }
    }

    /**
     * From the wire: secrets validated ({@link DhchapSecret}), an empty controller key one-way, an empty
     * hash or group the kernel's default (written explicitly, so a re-apply restores exactly it).
     */
    public static HostAuth of(String hostKey, String controllerKey, String hash, String dhGroup) {
        return new HostAuth(DhchapSecret.of("auth.host_key", hostKey),
                controllerKey.isEmpty() ? Optional.empty() : Optional.of(DhchapSecret.of("auth.controller_key", controllerKey)),
                hash.isEmpty() ? HASHES.getFirst() : hash, dhGroup.isEmpty() ? DH_GROUPS.getFirst() : dhGroup);
    }

    /** One-way authentication with the kernel's default hash and group. */
    public static HostAuth oneWay(DhchapSecret hostKey) {
        return new HostAuth(hostKey, Optional.empty(), HASHES.getFirst(), DH_GROUPS.getFirst());
    }

    /** The same with a controller key: bidirectional. */
    public HostAuth withControllerKey(DhchapSecret key) {
        return new HostAuth(hostKey, Optional.of(key), hash, dhGroup);
    }

    @Override
    public String toString() {
        return "HostAuth[" + (controllerKey.isPresent() ? "bidirectional" : "one-way") + ", " + hash + ", " + dhGroup + "]";
    }
}
