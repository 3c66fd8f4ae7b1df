package pillar.node.stage;

/** How far NodeStageVolume got for a volume. */
public enum Phase {
    /**
     * Written before the first change to the host (before connecting), so that a crash or a failure
     * at any later point leaves a record NodeUnstageVolume can undo from (disconnect, unmount).
     */
    ATTACHING,
    /** Connected, formatted if it was blank, mounted (Filesystem): NodeStageVolume succeeded. */
    STAGED
}
