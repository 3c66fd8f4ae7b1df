package pillar.controller.reconcile;

import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.stream.Collectors;

import pillar.api.agent.v1.Export;
import pillar.api.agent.v1.Volume;
import pillar.controller.crd.PillarVolumeState;

/**
 * The volumes and exports of one backend on one agent that no PillarVolumeState claims (a state
 * claims the volume of its name on its own agent and backend), as the pure comparison of the
 * agent's ListVolumes and ListExports with the states. Nothing here deletes: an orphan is only
 * reported, with the first {@value #SHOWN} names of each kind and the counts.
 *
 * @param volumes the orphaned volume IDs, sorted
 * @param exports the orphaned exports' volume IDs, sorted
 */
public record OrphanVolumes(List<String> volumes, List<String> exports) {
    /** Names listed in a message, per kind; the rest are counted. */
    public static final int SHOWN = 10;

    /**
     * The orphans of {@code backend} on {@code agent}. The states must be read after the agent's lists:
     * a state is written before its volume is made and removed only after it is destroyed, so a volume
     * listed then has its state still there (a delete in between can show it once, never hide one).
     */
    public static OrphanVolumes of(String agent, String backend, List<Volume> listed, List<Export> exported,
                                   List<PillarVolumeState> states) {
        Set<String> claimed = states.stream().filter(s -> s.getSpec() != null
                        && Objects.equals(s.getSpec().getAgent(), agent) && Objects.equals(s.getSpec().getBackend(), backend))
                .map(s -> s.getMetadata().getName()).collect(Collectors.toSet());
        return new OrphanVolumes(
                listed.stream().filter(v -> v.getBackend().equals(backend)).map(Volume::getVolumeId)
                        .filter(id -> !claimed.contains(id)).sorted().distinct().toList(),
                exported.stream().filter(e -> e.getBackend().equals(backend)).map(Export::getVolumeId)
                        .filter(id -> !claimed.contains(id)).sorted().distinct().toList());
    }

    public boolean any() {
        return !volumes.isEmpty() || !exports.isEmpty();
    }

    /** What the condition says: the orphans (bounded), or that there are none. */
    public String message(String agent, String backend) {
        String where = "backend " + backend + " on agent " + agent;
        if (!any()) {
            return "every volume and export of " + where + " is claimed by a PillarVolumeState";
        }
        return where + " has " + part(volumes, "volume") + " and " + part(exports, "export")
                + " that no PillarVolumeState claims; they are never deleted automatically: inspect them and remove"
                + " them by hand (README, \"Orphaned volumes\")";
    }

    private static String part(List<String> names, String kind) {
        if (names.isEmpty()) {
            return "no orphaned " + kind + "s";
        }
        String shown = String.join(", ", names.subList(0, Math.min(SHOWN, names.size())));
        return names.size() + " orphaned " + kind + (names.size() == 1 ? "" : "s") + " (" + shown
                + (names.size() > SHOWN ? ", and " + (names.size() - SHOWN) + " more" : "") + ")";
    }
}
