package pillar.api.agent;

/**
 * The bounds of GetVolumesHealth, shared by the agent that serves it and the controller that calls it:
 * at most {@link #MAX_ENTRIES} entries a call (more is INVALID_ARGUMENT), read {@link #AT_ONCE} at a time
 * by the agent, as the controller's ListVolumes asked GetVolumeHealth before the batch. It needs no new
 * {@link AgentApiLevel}: an agent without it answers UNIMPLEMENTED and is asked GetVolumeHealth per volume.
 */
public final class HealthBatch {
    /** The most entries one GetVolumesHealth call may carry. */
    public static final int MAX_ENTRIES = 1000;
    /** How many entries the agent reads at once. */
    public static final int AT_ONCE = 16;

    private HealthBatch() {
    }

    /** How many rounds of {@link #AT_ONCE} reads {@code entries} take: what a caller's deadline scales with. */
    public static int rounds(int entries) {
        return Math.max(1, (entries + AT_ONCE - 1) / AT_ONCE);
    }
}
