package pillar.controller.snapshot;

import java.util.EnumSet;
import java.util.Optional;

import pillar.api.value.InvalidValueException;
import pillar.api.value.SnapshotId;
import pillar.api.value.VolumeId;
import pillar.controller.crd.PillarSnapshotState;
import pillar.controller.crd.PillarVolumeState;
import pillar.controller.crd.SnapshotPhase;
import pillar.controller.crd.VolumeContentSource;
import pillar.controller.crd.VolumePhase;
import pillar.controller.volume.state.Records;
import pillar.controller.volume.create.VolumeContent;
import pillar.controller.volume.state.VolumeStates;
import pillar.runtime.server.CsiException;

/**
 * A CreateVolume's {@code volume_content_source} resolved to the {@link VolumeContent} the volume is
 * made from: a snapshot that exists and is ready, or a volume that exists and is created. A source
 * that does not exist (or cannot be an ID of ours) is NOT_FOUND, as the CSI spec says; one that is
 * being created or deleted is ABORTED (the CO retries).
 */
public final class ContentSources {
    private static final EnumSet<VolumePhase> CLONABLE = EnumSet.of(VolumePhase.Exporting, VolumePhase.Exported);

    private final SnapshotStates snapshots;
    private final VolumeStates volumes;

    ContentSources(SnapshotStates snapshots, VolumeStates volumes) {
        this.snapshots = snapshots;
        this.volumes = volumes;
    }

    /** @param mode how the copy relates to its source, when the class says */
    public VolumeContent resolve(pillar.api.csi.v1.VolumeContentSource source, Optional<VolumeContentSource.CopyMode> mode) {
        VolumeContentSource.CopyMode copy = mode.orElse(null);
        switch (source.getTypeCase()) {
            case SNAPSHOT -> {
                String named = source.getSnapshot().getSnapshotId();
                PillarSnapshotState snapshot = parse(named, SnapshotId::of).flatMap(snapshots::get)
                        .orElseThrow(() -> CsiException.notFound("volume_content_source: snapshot " + named + " does not exist"));
                if (SnapshotStates.phase(snapshot) != SnapshotPhase.Ready
                        || !Boolean.TRUE.equals(snapshot.getStatus().getReadyToUse())) {
                    throw CsiException.aborted("volume_content_source: snapshot " + named + " is " + SnapshotStates.phase(snapshot)
                            + ", not ready to restore from; retry");
                }
                return new VolumeContent(VolumeContentSource.ofSnapshot(named, copy), snapshot.getSpec().getStore(),
                        snapshot.getSpec().getBackend(), snapshot.getStatus().getSizeBytes());
            }
            case VOLUME -> {
                String named = source.getVolume().getVolumeId();
                PillarVolumeState volume = parse(named, VolumeId::of).flatMap(volumes::get)
                        .orElseThrow(() -> CsiException.notFound("volume_content_source: volume " + named + " does not exist"));
                if (!CLONABLE.contains(Records.phase(volume))) {
                    throw CsiException.aborted("volume_content_source: volume " + named + " is " + Records.phase(volume)
                            + "; retry once it is created");
                }
                return new VolumeContent(VolumeContentSource.ofVolume(named, copy), volume.getSpec().getStore(),
                        volume.getSpec().getBackend(), Records.capacity(volume));
            }
            default -> throw CsiException.invalid("volume_content_source: a snapshot or a volume is required");
        }
    }

    private static <T> Optional<T> parse(String value, java.util.function.Function<String, T> grammar) {
        try {
            return Optional.of(grammar.apply(value));
        } catch (InvalidValueException malformed) {
            return Optional.empty();
        }
    }
}
