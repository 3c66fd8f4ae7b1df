package pillar.controller.crd;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.ValidationRule;

/**
 * What a volume was made from, frozen at creation: exactly one of a snapshot (a restore) or a volume
 * (a clone), and how the copy relates to it. A retried CreateVolume must name the same source.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@ValidationRule(value = "has(self.snapshotId) != has(self.volumeId)", message = "exactly one of snapshotId and volumeId")
public class VolumeContentSource {
    /** How a restore or clone relates to its source. */
    public enum CopyMode {
        /** Shares blocks with the source (ZFS zfs clone, LVM thin snapshot); instant. */
        Linked,
        /** Shares nothing with the source (ZFS zfs send | zfs recv); takes as long as the copy. */
        Independent
    }

    @JsonPropertyDescription("The CSI snapshot ID of the snapshot the volume was restored from.")
    @Pattern(Grammars.DNS_LABEL)
    private String snapshotId;

    @JsonPropertyDescription("The CSI volume ID of the volume the volume was cloned from.")
    @Pattern(Grammars.DNS_LABEL)
    private String volumeId;

    @JsonPropertyDescription("Linked or Independent; unset: the backend's instant way (linked where it can).")
    private CopyMode mode;

    public static VolumeContentSource ofSnapshot(String snapshotId, CopyMode mode) {
        VolumeContentSource source = new VolumeContentSource();
        source.setSnapshotId(snapshotId);
        source.setMode(mode);
        return source;
    }

    public static VolumeContentSource ofVolume(String volumeId, CopyMode mode) {
        VolumeContentSource source = new VolumeContentSource();
        source.setVolumeId(volumeId);
        source.setMode(mode);
        return source;
    }

    public String getSnapshotId() {
        return snapshotId;
    }

    public void setSnapshotId(String snapshotId) {
        this.snapshotId = snapshotId;
    }

    public String getVolumeId() {
        return volumeId;
    }

    public void setVolumeId(String volumeId) {
        this.volumeId = volumeId;
    }

    public CopyMode getMode() {
        return mode;
    }

    public void setMode(CopyMode mode) {
        this.mode = mode;
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof VolumeContentSource that && java.util.Objects.equals(snapshotId, that.snapshotId)
                && java.util.Objects.equals(volumeId, that.volumeId) && mode == that.mode;
    }

    @Override
    public int hashCode() {
        return java.util.Objects.hash(snapshotId, volumeId, mode);
    }

    @Override
    public String toString() {
        return (snapshotId != null ? "snapshot " + snapshotId : "volume " + volumeId) + (mode == null ? "" : " (" + mode + ")");
    }
}
