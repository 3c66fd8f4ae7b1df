package pillar.controller.crd;

/** How far a snapshot's agent steps have come; each is recorded before the agent is called for it. */
public enum SnapshotPhase {
    /** The agent is (or was) asked to take the snapshot. */
    Creating,
    /** Taken: it can be restored from and listed. */
    Ready,
    /** The agent is (or was) asked to destroy it; the record goes once that succeeded. */
    Deleting
}
