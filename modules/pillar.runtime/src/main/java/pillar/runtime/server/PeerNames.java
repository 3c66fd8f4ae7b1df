package pillar.runtime.server;

import java.util.Set;

/**
 * The names by which this workload admits or verifies its peers, which its own certificate must
 * therefore not carry: a certificate with one of them would let its holder pass for the peer (an
 * agent's key calling other agents as the controller, or the controller's answering as an agent).
 *
 * @param names   the peers' names (subjectAltName DNS)
 * @param setting the configuration key that lists them, quoted in refusals
 */
public record PeerNames(Set<String> names, String setting) {
    public PeerNames {
        names = Set.copyOf(names);
    }

    /** No peer names to keep out (a workload that does not name its peers). */
    public static PeerNames none() {
        return new PeerNames(Set.of(), "");
    }
}
