package pillar.controller;

import java.util.Optional;

import pillar.runtime.server.WorkloadServer;
import pillar.controller.csi.HostNqns;
import pillar.controller.csi.VolumeCatalog;
import pillar.controller.leader.LeaderElection;
import pillar.controller.volume.Leading;

/**
 * The running controller: its CSI and health server, its part in the leader election, its cache of
 * the nodes' host NQNs and of the volumes it lists, and (while it leads) its reconcile loops. Closing
 * it stops them all and releases the lease; the Kubernetes and agent clients belong to whoever started it.
 */
public final class ControllerWorkload implements AutoCloseable {
    private final WorkloadServer server;
    private final Reconcilers reconcilers;
    private final Optional<LeaderElection> election;
    private final Leading leading;
    private final HostNqns nqns;
    private final VolumeCatalog catalog;

    ControllerWorkload(WorkloadServer server, Reconcilers reconcilers, Optional<LeaderElection> election, Leading leading,
                       HostNqns nqns, VolumeCatalog catalog) {
        this.nqns = nqns;
        this.catalog = catalog;
        this.server = server;
        this.reconcilers = reconcilers;
        this.election = election;
        this.leading = leading;
    }

    public WorkloadServer server() {
        return server;
    }

    /** Whether this replica leads now (always, when leader election is off). */
    public boolean leading() {
        return leading.now();
    }

    /** True once this leader's informers have synced (the readiness check {@code informers-synced}). */
    public boolean ready() {
        return reconcilers.ready();
    }

    /** This replica's identity in the election, when there is one. */
    public Optional<String> identity() {
        return election.map(LeaderElection::identity);
    }

    /**
     * Stops acting first (the reconcilers, then the CSI server, which lets calls in flight finish),
     * and only then gives up the Lease: the next leader never acts beside this one's last calls.
     */
    @Override
    public void close() {
        try {
            reconcilers.stop();
            server.close();
        } finally {
            election.ifPresent(LeaderElection::close);
            nqns.close();
            catalog.close();
        }
    }
}
