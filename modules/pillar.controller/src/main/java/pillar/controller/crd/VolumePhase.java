package pillar.controller.crd;

/**
 * How far a volume's agent steps have come. Each step is recorded (with a new publication
 * generation) before the agent is called for it, so a retry after a crash knows where to resume;
 * every agent call is idempotent, so repeating the step that was interrupted is safe.
 */
public enum VolumePhase {
    /** The state is written; nothing was asked of the agent yet. */
    Pending,
    /** The agent is (or was) asked to create the zvol or LV. */
    Creating,
    /** The backend volume exists; the agent is (or was) asked to export it. */
    Exporting,
    /** Created and exported: the volume can be published. */
    Exported,
    /** The agent is (or was) asked to unexport and destroy it; the state goes once that succeeded. */
    Deleting
}
