package pillar.agent.backend;

import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import pillar.agent.state.InstallationId;
import pillar.api.value.ByteSize;
import pillar.api.value.VolumeId;

/**
 * One storage backend on this host: a ZFS parent dataset, an LVM volume group, or an LVM thin pool.
 * Every method is idempotent and safe to retry after a crash at any point.
 *
 * <p>Errors: {@link BackendException} with a {@link BackendException.Kind} that the service maps to
 * a gRPC code (ALREADY_EXISTS, OUT_OF_RANGE, RESOURCE_EXHAUSTED, INVALID_ARGUMENT, NOT_FOUND,
 * UNAVAILABLE, INTERNAL). Nothing is changed when an error is thrown for bad input.
 */
public interface VolumeBackend {
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
