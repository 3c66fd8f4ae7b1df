package pillar.agent.nfs;

/** How the release of a removed client's NFSv4 state went ({@link NfsServer#releaseState}). */
public enum StateRelease {
    /** Released, or none to release: nothing left to retry. */
    DONE,
    /** A write to nfsd did not return within its deadline (or was refused while others are stuck): retry later. */
    PENDING
}
