package pillar.agent.backend;

import java.util.Optional;

/**
 * What the pool under a backend says about its health, as read now: a ZFS pool's state as
 * {@code zpool list -o health} prints it, or an LVM thin pool's data and metadata usage. A backend with
 * neither (linear LVM) reports {@link #NONE}. Judging it (what is degraded, what is too full) is the
 * controller's job.
 *
 * @param state the ZFS pool's health (ONLINE, DEGRADED, FAULTED, UNAVAIL, ...); empty for LVM
 * @param thin  the thin pool's usage; empty for any other backend
 */
public record PoolHealth(String state, Optional<ThinUsage> thin) {
    /** Nothing to report. */
    public static final PoolHealth NONE = new PoolHealth("", Optional.empty());

    /** A ZFS pool's health. */
    public static PoolHealth zpool(String state) {
        return new PoolHealth(state, Optional.empty());
    }

    /** An LVM thin pool's usage. */
    public static PoolHealth thin(ThinUsage usage) {
        return new PoolHealth("", Optional.of(usage));
    }

    /** @param name VG/POOL; percentages 0 to 100 as lvs reports them */
    public record ThinUsage(String name, double dataPercent, double metadataPercent) {
    }
}
