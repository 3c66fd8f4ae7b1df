package pillar.agent.backend.zfs;

import java.util.List;
import java.util.Map;
import java.util.Optional;

import pillar.agent.backend.BackendVolume;
import pillar.agent.backend.zfs.ZfsOutput.Property;
import pillar.api.value.ByteSize;
import pillar.api.value.VolumeId;

/**
 * What a zvol and a filesystem dataset differ in for the snapshot, restore and clone policy both ZFS
 * backends share ({@link ZfsSnapshots}, {@link ZfsClones}): how a volume's size is read and set (a
 * zvol's {@code volsize} in multiples of its {@code volblocksize}, a filesystem's {@code refquota} in
 * bytes), which properties a new clone or copy carries, what makes a made volume usable (a zvol's
 * device, a filesystem's mount), and how a hidden one is listed and destroyed. Each backend
 * implements it privately; nothing here runs a command the backend would not.
 */
interface ZfsLayout {
    /** A volume of this installation: its size and the granularity a new size rounds up to (1 for none). */
    record Own(long size, long granularity) {
    }

    /**
     * A dataset of a volume's name, whoever made it.
     *
     * @param owned     whether it is a volume of this layout's type carrying this installation's mark
     * @param content   its {@value ZfsSnapshots#CONTENT_PROPERTY} set locally, "" for an empty volume's
     * @param ownership why it is or is not this installation's, for a conflict's message
     */
    record Made(boolean owned, long size, long granularity, String content, String ownership) {
    }

    /** "zvol" or "dataset", for log lines and messages. */
    String noun();

    /** The volume of this ID if it is this installation's; reads only. */
    Optional<Own> own(VolumeId id);

    /** The dataset of this volume's name with what it was made from; empty when none exists. Reads only. */
    Optional<Made> made(VolumeId id);

    /**
     * The {@code name=value} properties a new clone or copy of {@code size} carries besides the
     * ownership mark and content (a zvol's {@code volmode}; a filesystem's refquota, snapdir, sharenfs).
     */
    List<String> properties(ByteSize size);

    /** Whether {@link #properties} sets the size itself, so that a larger clone or copy needs no growth after. */
    boolean sizedByProperties();

    /** Sets the size of {@code dataset} (a clone or copy, perhaps not yet under its volume's name) to {@code size}. */
    void grow(String dataset, ByteSize size);

    /** Renames {@code from} (a complete copy) to {@code to} (its volume's name) as the backend renames its own. */
    void rename(String from, String to);

    /** The made volume of this size as the backend returns it: its device found, or its mount checked. */
    BackendVolume usable(VolumeId id, long size);

    /** These properties of every dataset of this layout's type directly below the parent; none without the parent. */
    Map<String, Map<String, Property>> ofParent(String properties);

    /** Destroys a hidden dataset as the backend destroys its volumes; busy past the backend's grace is BUSY, never thrown. */
    ZfsSnapshotCommands.Destroyed destroyHidden(String dataset);
}
