package pillar.controller.volume.publish;

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
import pillar.controller.volume.state.Records;

/**
 * What an agent's export of a volume holds that the volume's PillarVolumeState does not want: hosts
 * (NVMe host NQNs, NFS client addresses) it admits though the state no longer publishes to them
 * (grants whose DenyInitiator never arrived: the agent was unreachable when the CO gave up on an
 * unpublish, or the node was removed), and a kernel that differs from the agent's own record (the
 * export's drift: nvmet configfs or nfsd's export table changed behind the agent, e.g. `exportfs -ra`
 * or `nvmetcli clear` on the storage node). The pure comparison of the agent's ListExports with the
 * states, and the Reconcile call that repairs both.
 *
 * <p>Only states in phase Exported count (their publications are the record of who may connect).
 * The repair is the export exactly as the agent records it, its allowed hosts narrowed to those still
 * published: it never widens a grant, and the agent's Reconcile makes the kernel hold exactly that,
 * re-applying what went missing and removing what it does not list. It carries the state's current
 * fencing token: a publication changed since the state was read has a newer generation, and the
 * agent refuses the older token (FAILED_PRECONDITION), changing nothing.
 *
 * @param state  the volume's state as read after the agent's exports
 * @param export the volume's export as the agent listed it (with its drift)
 * @param stale  the allowed hosts the state does not publish to, sorted
 */
public record StaleGrants(PillarVolumeState state, Export export, List<String> stale) {
    /** The reason of the Warning event on the state once they are revoked. */
    public static final String REVOKED = "StaleGrantRevoked";
    /** The reason of the Warning event on the state once a drifted export (and no stale grant) is re-applied. */
    public static final String DRIFT_REPAIRED = "ExportDriftRepaired";

    public StaleGrants {
        stale = stale.stream().sorted().distinct().toList();
    }

    /**
     * The exports of {@code backend} on {@code agent} with stale grants or drift. The states must be read after the exports:
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
                .filter(g -> !g.stale.isEmpty() || g.export.getDriftCount() > 0)
                .sorted(Comparator.comparing(g -> g.export.getVolumeId()))
                .toList();
    }

    /** The kernel's differences from the agent's record, as the agent listed them; empty when in sync. */
    public List<String> drift() {
        return export.getDriftList();
    }

    /**
     * The Reconcile call that removes the stale hosts, keeps everything else as the agent records it,
     * and makes the kernel hold exactly that.
     */
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

    /** The event's reason: {@link #REVOKED} when a grant was stale, else {@link #DRIFT_REPAIRED}. */
    public String reason() {
        return stale.isEmpty() ? DRIFT_REPAIRED : REVOKED;
    }

    /** What the event and the log say once the agent revoked them and re-applied the export. */
    public String message(String agentName) {
        String drifted = drift().isEmpty() ? "" : "its export in the kernel differed from the agent's record ("
                + String.join("; ", drift()) + ")";
        if (stale.isEmpty()) {
            return "agent " + agentName + ": volume " + export.getVolumeId() + ": " + drifted + ": re-applied";
        }
        return "agent " + agentName + " still admitted " + String.join(", ", stale) + " to volume " + export.getVolumeId()
                + ", which is not published there (a revocation that never reached the agent): revoked"
                + (drifted.isEmpty() ? "" : "; " + drifted + ": re-applied");
    }
}
