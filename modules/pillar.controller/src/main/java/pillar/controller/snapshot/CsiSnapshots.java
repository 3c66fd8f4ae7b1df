package pillar.controller.snapshot;

import com.google.protobuf.Timestamp;
import pillar.api.csi.v1.Snapshot;
import pillar.controller.crd.PillarSnapshotState;

/** The CSI Snapshot of a PillarSnapshotState, as CreateSnapshot returns it and ListSnapshots lists it. A pure function. */
public final class CsiSnapshots {
    private CsiSnapshots() {
    }

    public static Snapshot of(PillarSnapshotState state) {
        Snapshot.Builder out = Snapshot.newBuilder().setSnapshotId(state.getMetadata().getName())
                .setSourceVolumeId(state.getSpec().getSourceVolumeId());
        if (state.getStatus() != null) {
            var status = state.getStatus();
            out.setSizeBytes(status.getSizeBytes() == null ? 0 : status.getSizeBytes())
                    .setReadyToUse(Boolean.TRUE.equals(status.getReadyToUse()) && SnapshotStates.phase(state)
                            == pillar.controller.crd.SnapshotPhase.Ready);
            if (status.getCreationTimeSeconds() != null) {
                out.setCreationTime(Timestamp.newBuilder().setSeconds(status.getCreationTimeSeconds()));
            }
        }
        return out.build();
    }
}
