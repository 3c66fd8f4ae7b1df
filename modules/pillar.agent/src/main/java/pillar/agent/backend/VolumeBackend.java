package pillar.agent.backend;

import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import pillar.agent.state.InstallationId;
import pillar.api.value.ByteSize;
import pillar.api.value.SnapshotId;
import pillar.api.value.VolumeId;

/**
 * One storage backend on this host: a ZFS parent dataset, an LVM volume group, or an LVM thin pool.
 * Every method is idempotent and safe to retry after a crash at any point.
 *
 * <p>Errors: {@link BackendException} with a {@link BackendException.Kind} that the service maps to
 * a gRPC code (ALREADY_EXISTS, OUT_OF_RANGE, RESOURCE_EXHAUSTED, INVALID_ARGUMENT, NOT_FOUND,
 * UNAVAILABLE, ABORTED, INTERNAL). Nothing is changed when an error is thrown for bad input.
 */
public interface VolumeBackend extends AutoCloseable {
    /** The configured name PillarStore objects refer to. */
    String name();

    /**
     * Creates the volume, at least {@code size} bytes (rounded up to the backend's granularity).
     * An existing volume of this ID with the same rounded size is returned as it is; with another
     * size: {@code ALREADY_EXISTS}. Options outside the backend's allow-list: {@code INVALID_ARGUMENT}.
     * Not enough space: {@code RESOURCE_EXHAUSTED}. Returns once the block device exists.
     * The new volume reads zeroes wherever it was not written (no byte of a deleted volume), except on a
     * thin pool that does not zero new chunks, which is refused ({@code UNAVAILABLE}) unless
     * {@code pool} is {@link NonZeroingPool#ACCEPT}.
     */
    BackendVolume create(VolumeId id, ByteSize size, Map<String, String> options, NonZeroingPool pool);

    /** {@link #create(VolumeId, ByteSize, Map, NonZeroingPool)} that refuses a pool which does not zero. */
    default BackendVolume create(VolumeId id, ByteSize size, Map<String, String> options) {
        return create(id, size, options, NonZeroingPool.REFUSE);
    }

    /**
     * Brings the existing volume named exactly {@code id}, where this backend puts its own, under this installation
     * (a static PersistentVolume): sets its ownership marks as {@link #create} sets them, in one command, and returns
     * it as {@link #find} then does. The only call that marks a volume it did not make; {@link #create} still refuses
     * an unmarked one. Refusals change nothing:
     * <ul>
     *   <li>no such volume, or one of another kind (a filesystem for a zvol backend, a thin LV for a linear one):
     *       {@code NOT_FOUND}, saying what it is;</li>
     *   <li>another installation's mark: {@code FOREIGN};</li>
     *   <li>smaller than {@code minSize} (0: any size): {@code OUT_OF_RANGE};</li>
     *   <li>in use, as each backend defines it, or exported by the kernel's target or NFS server ({@code exports}):
     *       {@code IN_USE}, saying by what.</li>
     * </ul>
     * One that carries this installation's marks already (a retry, after a crash too) is returned as it is, unchanged
     * and not asked about its use (the adoption may have been followed by an export).
     */
    BackendVolume adopt(VolumeId id, ByteSize minSize, KernelExports exports);

    /** Why this backend refuses new volumes, for a person to act on; empty when it serves (or cannot tell). */
    default Optional<BackendProblem> problem() {
        return Optional.empty();
    }

    /** The volume, or empty if it does not exist. */
    Optional<BackendVolume> find(VolumeId id);

    /**
     * The volumes of these IDs that exist, each as {@link #find} returns it (a missing one is left
     * out), read with one report of the backend where it can (the agent's start-up re-applies every
     * export: one command per volume made that minutes with hundreds of them). Throws like {@link #find}.
     */
    default Map<VolumeId, BackendVolume> findAll(Collection<VolumeId> ids) {
        Map<VolumeId, BackendVolume> found = new LinkedHashMap<>();
        for (VolumeId id : ids) {
            find(id).ifPresent(volume -> found.put(id, volume));
        }
        return found;
    }

    /**
     * Whether this backend's own volume of this ID exists; reads only (unlike {@link #find}, never
     * activates it nor waits for its device).
     */
    default boolean exists(VolumeId id) {
        return find(id).isPresent();
    }

    /**
     * The health of the pool this backend carves from; reads only, one command with its deadline.
     * The pool's absence or a failed command is a {@link BackendException} (UNAVAILABLE, FAILED).
     */
    default PoolHealth health() {
        return PoolHealth.NONE;
    }

    /**
     * The installation a pillar-csi volume of this backend with this ID belongs to, whichever it is
     * (its ownership mark, set on the volume itself), so that a lost state identity can be recovered
     * from the volumes; empty when there is no such volume or it carries no valid mark. Reads only.
     */
    default Optional<InstallationId> owner(VolumeId id) {
        return Optional.empty();
    }

    /**
     * Grows the volume to at least {@code required} bytes. At or above that size already: no
     * change. Smaller than the current size: {@code OUT_OF_RANGE} (never shrinks). Missing: {@code NOT_FOUND}.
     * Returns the volume's size now; the device is not looked for (an export already names it).
     */
    ByteSize expand(VolumeId id, ByteSize required);

    /** Destroys the volume; a missing one is success. The caller unexports it first. */
    void delete(VolumeId id);

    /** The volumes this driver created on this backend (others, e.g. the thin pool itself, are never listed). */
    List<BackendVolume> list();

    /** Total and available bytes for new volumes. */
    Capacity capacity();

    /** Whether this backend can take snapshots (ZFS, LVM thin; an LVM linear backend cannot). */
    default boolean snapshots() {
        return false;
    }

    /**
     * Creates the volume with the content of {@code source} (a snapshot or a volume of this backend),
     * at least {@code size} bytes and at least the source's size: a smaller {@code size} is
     * {@code OUT_OF_RANGE}, a larger one grows the new volume. A missing source is {@code NOT_FOUND}.
     * An existing volume of this ID made from the same source and size is returned as it is; otherwise
     * {@code ALREADY_EXISTS}. A copy cut short by a crash is resumed (or started again) by the retry, never
     * returned. A backend that copies in the background answers {@code BUSY} (ABORTED), with the progress in
     * the message, until the copy is whole; meanwhile the source refuses a delete and an expand ({@code BUSY}).
     */
    default BackendVolume create(VolumeId id, ByteSize size, Map<String, String> options, NonZeroingPool pool,
                                 VolumeSource source) {
        throw new BackendException(BackendException.Kind.INVALID, "backend " + name() + " cannot make volumes from a source");
    }

    /**
     * Takes a snapshot of volume {@code source}. An existing snapshot of this ID and source is returned
     * as it is; of another source: {@code ALREADY_EXISTS}. A missing source is {@code NOT_FOUND}; a backend
     * without snapshots ({@link #snapshots()} false) refuses with {@code UNSUPPORTED} naming its layout.
     */
    default BackendSnapshot snapshot(SnapshotId id, VolumeId source) {
        throw new BackendException(BackendException.Kind.UNSUPPORTED, "backend " + name() + " cannot take snapshots");
    }

    /** The snapshot, or empty if it does not exist (or was deleted and is only kept for its clones). */
    default Optional<BackendSnapshot> findSnapshot(SnapshotId id) {
        return Optional.empty();
    }

    /**
     * Destroys the snapshot; a missing one is success. One that volumes made from it still depend on is
     * hidden at once (never listed, never restorable again) and destroyed when the last of them goes.
     */
    default void deleteSnapshot(SnapshotId id) {
    }

    /** The snapshots this driver took on this backend that are not deleted. */
    default List<BackendSnapshot> listSnapshots() {
        return List.of();
    }

    /** Stops what the backend runs in the background (a clone's copy), each resumable; calls after it are refused. */
    @Override
    default void close() {
    }

    /** Whether a create may use a thin pool whose new chunks are not zeroed (they may hold a deleted volume's bytes). */
    enum NonZeroingPool {
        /** Refuse such a pool (the default). */
        REFUSE,
        /** The store accepts it explicitly. */
        ACCEPT
    }

    /** Bytes a backend offers. */
    record Capacity(ByteSize total, ByteSize available) {
    }
}
