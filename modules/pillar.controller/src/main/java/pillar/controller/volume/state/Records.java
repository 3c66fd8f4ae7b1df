package pillar.controller.volume.state;

import java.util.List;
import java.util.Optional;

import pillar.api.fencing.FencingToken;
import pillar.api.value.LifecycleUid;
import pillar.api.value.VolumeId;
import pillar.controller.crd.PillarVolumeState;
import pillar.controller.crd.PillarVolumeStateStatus;
import pillar.controller.crd.Publication;
import pillar.controller.crd.VolumePhase;
import pillar.controller.volume.publish.HostAuthentication;

/** Reading a PillarVolumeState's record: what an absent status or field means. Pure functions. */
public final class Records {
    private Records() {
    }

    /** The phase; a state without status is {@link VolumePhase#Pending}. */
    public static VolumePhase phase(PillarVolumeState state) {
        return status(state).map(s -> s.getPhase()).orElse(VolumePhase.Pending);
    }

    /** Whether someone asked the API to delete it while the controller's finalizer holds it. */
    public static boolean deletionHeld(PillarVolumeState state) {
        return state.getMetadata().getDeletionTimestamp() != null
                && state.getMetadata().getFinalizers().contains(PillarVolumeState.FINALIZER);
    }

    public static long generation(PillarVolumeState state) {
        return status(state).map(s -> s.getPublicationGeneration()).orElse(0L);
    }

    public static List<Publication> publications(PillarVolumeState state) {
        return status(state).map(s -> s.getPublications()).orElse(List.of());
    }

    /** The distinct nodes the volume is published to, in publication order (CSI's published_node_ids). */
    public static List<String> publishedNodes(PillarVolumeState state) {
        return publications(state).stream().map(Publication::getNode).distinct().toList();
    }

    /**
     * Who the agent admits for each publication, as its export lists them: the client address an NFS
     * export admits, the publication's own host NQN (and the node's, for one made before per-publication
     * keys) where the export requires authentication, else the node's host NQN.
     */
    public static List<String> grantees(PillarVolumeState state) {
        if (state.getSpec() != null && state.getSpec().getExport() != null && state.getSpec().getExport().requiresAuth()) {
            VolumeId id = VolumeId.of(state.getMetadata().getName());
            return publications(state).stream().flatMap(p -> HostAuthentication.grantees(id, p.getNode()).stream())
                    .distinct().toList();
        }
        return publications(state).stream().map(p -> p.getClientAddress() != null ? p.getClientAddress() : p.getNode())
                .distinct().toList();
    }

    /** The size now: as last reported by the agent, else as created. */
    public static long capacity(PillarVolumeState state) {
        return status(state).map(s -> s.getCapacityBytes()).orElse(state.getSpec().getCapacityBytes());
    }

    /** The token of the state's current generation: what the next agent call carries. */
    public static FencingToken token(PillarVolumeState state) {
        return FencingToken.of(LifecycleUid.of(state.getMetadata().getUid()), generation(state));
    }

    private static Optional<PillarVolumeStateStatus> status(PillarVolumeState state) {
        return Optional.ofNullable(state.getStatus());
    }
}
