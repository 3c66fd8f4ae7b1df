package pillar.controller.volume;

import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Collectors;

import pillar.api.agent.v1.DesiredExport;
import pillar.api.agent.v1.Export;
import pillar.api.agent.v1.ReconcileRequest;
import pillar.controller.crd.PillarVolumeState;
import pillar.controller.crd.VolumePhase;

/**
 * The hosts (NVMe host NQNs, NFS client addresses) an agent admits to a volume that the volume's
 * PillarVolumeState no longer publishes to:
 * grants whose DenyInitiator never arrived (the agent was unreachable when the CO gave up on an
 * unpublish, or the node was removed). The pure comparison of the agent's ListExports with the
 * states, and the Reconcile call that revokes them.
 *
 * <p>Only states in phase Exported count (their publications are the record of who may connect),
 * and only hosts are ever removed: the revocation is the export exactly as the agent holds it, its
 * allowed hosts narrowed to those still published, so it never widens a grant nor re-exports. It
 * carries the state's current fencing token: a publication changed since the state was read has a
 * newer generation, and the agent refuses the older token (FAILED_PRECONDITION), changing nothing.
 *
 * @param state  the volume's state as read after the agent's exports
 * @param export the volume's export as the agent listed it
 * @param stale  the allowed hosts the state does not publish to, sorted
 */
public record StaleGrants(PillarVolumeState state, Export export, List<String> stale) {
    /** The reason of the Warning event on the state once they are revoked. */
    public static final String REVOKED = "StaleGrantRevoked";

    public StaleGrants {
        stale = stale.stream().sorted().distinct().toList();
    }

    /**
     * The stale grants of {@code backend} on {@code agent}. The states must be read after the exports:
     * a publication is recorded before its host is allowed, so a host listed then is in the state
     * read after unless it was unpublished since.
     */
    public static List<StaleGrants> of(String agent, String backend, List<Export> exports, List<PillarVolumeState> states) {
        Map<String, PillarVolumeState> claimed = states.stream()
                .filter(s -> s.getSpec() != null && Objects.equals(s.getSpec().getAgent(), agent)
                        && Objects.equals(s.getSpec().getBackend(), backend) && Records.phase(s) == VolumePhase.Exported)
                .collect(Collectors.toMap(s -> s.getMetadata().getName(), Function.identity(), (a, b) -> a));
        return exports.stream()
                .filter(e -> e.getBackend().equals(backend) && claimed.containsKey(e.getVolumeId()))
                .map(e -> {
                    PillarVolumeState state = claimed.get(e.getVolumeId());
                    Set<String> published = Set.copyOf(Records.grantees(state));
                    List<String> stale = e.getAllowedHostsList().stream().filter(h -> !published.contains(h)).toList();
                    return new StaleGrants(state, e, stale);
                })
                .filter(g -> !g.stale.isEmpty())
                .sorted(Comparator.comparing(g -> g.export.getVolumeId()))
                .toList();
    }

    /** The Reconcile call that removes the stale hosts and keeps everything else as the agent holds it. */
    public ReconcileRequest revocation() {
        return ReconcileRequest.newBuilder()
                .setToken(Records.token(state).toProto())
                .setVolumeId(export.getVolumeId())
                .setDesired(DesiredExport.newBuilder()
                        .setBackend(export.getBackend())
                        .setExport(export.getExport())
                        .addAllAllowedHosts(export.getAllowedHostsList().stream().filter(h -> !stale.contains(h)).toList()))
                .build();
    }

    /** What the event and the log say once the agent revoked them. */
    public String message(String agentName) {
        return "agent " + agentName + " still admitted " + String.join(", ", stale) + " to volume " + export.getVolumeId()
                + ", which is not published there (a revocation that never reached the agent): revoked";
    }
}
