package pillar.agent.configfs;

/**
 * What the agent finds where the target should be, checked once at start-up
 * ({@link NvmetTarget#presence()}): a missing configfs or nvmet makes every later call fail, so the
 * agent refuses to start then, with what to do.
 */
public enum TargetPresence {
    /** configfs is mounted at the root and holds nvmet's tree: the kernel target is there. */
    READY,
    /**
     * nvmet's tree is there but the root is no configfs mount: a plain directory standing in for it
     * (a sandbox on a host without nvmet). Exports are written there and reach no kernel.
     */
    STAND_IN,
    /** No configfs is mounted at the root (and nothing stands in for it). */
    NOT_MOUNTED,
    /** configfs is mounted, but without {@code nvmet/}: the nvmet module is not loaded. */
    NVMET_MISSING
}
