package pillar.api.context;

import java.nio.charset.StandardCharsets;
import java.util.UUID;

import pillar.api.value.Nqn;

/**
 * The host NQN of one publication (a node and a volume) of a volume whose target requires DH-HMAC-CHAP:
 * {@code nqn.2014-08.org.nvmexpress:uuid:<name-based UUID of the node ID and the volume ID>}. nvmet keeps
 * a host's keys per host NQN and target, so a host NQN per publication is what lets each publication
 * have keys of its own. The NQN is not secret (anyone knowing both IDs can compute it); its keys are.
 * Its UUID is also the connect's {@code hostid}: from 6.8 on each host NQN needs its own host ID, and a
 * name-based UUID is the same for one NQN every time and another for another.
 */
public final class PublicationHost {
    private static final String PREFIX = "nqn.2014-08.org.nvmexpress:uuid:";

    private PublicationHost() {
    }

    /** The publication's host NQN; the same for the same node and volume, another for any other pair. */
    public static Nqn nqn(String nodeId, String volumeId) {
        byte[] name = ("pillar-csi publication host\n" + nodeId + "\n" + volumeId).getBytes(StandardCharsets.UTF_8);
        return Nqn.of(PREFIX + UUID.nameUUIDFromBytes(name));
    }
}
