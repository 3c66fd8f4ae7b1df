package pillar.controller.volume.publish;

import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.logging.Logger;
import java.util.stream.Collectors;

import pillar.api.agent.v1.Export;
import pillar.api.agent.v1.ListExportsRequest;
import pillar.api.value.VolumeId;
import pillar.controller.agent.AgentClient;
import pillar.controller.agent.AgentException;
import pillar.controller.agent.AgentTarget;
import pillar.controller.crd.PillarVolumeState;
import pillar.controller.reconcile.loop.Events;
import pillar.controller.reconcile.ExportAudit;
import pillar.runtime.server.CsiException;
import pillar.runtime.server.VolumeLocks;
import pillar.controller.volume.state.VolumeStates;

/**
 * Revokes, through the agent's Reconcile, every grant that no publication holds, and re-applies every
 * export whose kernel state drifted from the agent's record ({@link StaleGrants}), with a Warning event
 * {@value StaleGrants#REVOKED} or {@value StaleGrants#DRIFT_REPAIRED} on the state: a grant never
 * outlives its publication by more than a store's poll interval, and an export wiped behind the agent
 * (an `exportfs -ra` on the storage node) stays wiped at most two: a drift alone is repaired when the
 * next poll still finds it (not in the middle of a change another party is making; the volume's
 * condition reports it meanwhile). One the agent refuses (a newer token,
 * say) or cannot take now (the kernel refuses the re-apply) is logged and looked at again on the next poll.
 *
 * <p>The poll's listing only finds candidates. Each is decided again holding the volume's lock, from
 * the volume's export listed anew and its state read after it: no publish or unpublish of the volume
 * runs then, so an unpublish whose deny just landed is no stale grant, and a host allowed after the
 * poll's listing is in the export the revocation narrows (never dropped with the stale one). A
 * volume busy with another operation is left for the next poll.
 */
public final class GrantRevocation implements ExportAudit {
    private static final Logger LOG = Logger.getLogger(GrantRevocation.class.getName());

    private final AgentClient agents;
    private final Events events;
    private final VolumeStates states;
    private final VolumeLocks locks;
    /** The volumes whose export the last poll found drifted, as AGENT/VOLUME: a second poll in a row repairs them. */
    private final Set<String> driftSeen = ConcurrentHashMap.newKeySet();

    public GrantRevocation(AgentClient agents, Events events, VolumeStates states, VolumeLocks locks) {
        this.agents = agents;
        this.events = events;
        this.states = states;
        this.locks = locks;
    }

    @Override
    public void audit(AgentTarget target, String agent, String backend, List<Export> exports, List<PillarVolumeState> states) {
        // the agent's whole listing: a drift gone, or a volume gone, is forgotten
        Set<String> drifted = exports.stream().filter(e -> e.getDriftCount() > 0).map(e -> seen(agent, e.getVolumeId()))
                .collect(Collectors.toSet());
        driftSeen.removeIf(key -> key.startsWith(agent + "/") && !drifted.contains(key));
        for (StaleGrants candidate : StaleGrants.of(agent, backend, exports, states)) {
            VolumeId id = VolumeId.of(candidate.export().getVolumeId());
            // a drift alone is repaired once a second poll still finds it: never in the middle of a change
            // another party is making, and the volume's condition reports it meanwhile
            if (candidate.stale().isEmpty() && driftSeen.add(seen(agent, id.value()))) {
                LOG.info(() -> "PillarVolumeState " + id + ": its export drifted in the kernel (" + String.join("; ",
                        candidate.drift()) + "): re-applied at the next poll if it is still so");
                continue;
            }
            try {
                locks.run(id, "revoking stale grants", () -> {
                    confirmed(target, agent, backend, id).ifPresent(grant -> revoke(target, agent, grant));
                    return null;
                });
            } catch (CsiException busy) {
                LOG.fine(() -> "PillarVolumeState " + id + ": stale grants " + candidate.stale() + " looked at on the next poll: "
                        + busy.getMessage());
            } catch (AgentException e) {
                LOG.warning(() -> "PillarVolumeState " + id + ": stale grants " + candidate.stale() + " and drift "
                        + candidate.drift() + " not repaired now: " + e.getMessage());
            }
        }
    }

    private static String seen(String agent, String volumeId) {
        return agent + "/" + volumeId;
    }

    /** The volume's stale grants and drift as they are now: its export listed again, then its state read. */
    private Optional<StaleGrants> confirmed(AgentTarget target, String agent, String backend, VolumeId id) {
        List<Export> export = agents.listExports(target, ListExportsRequest.getDefaultInstance()).getExportsList().stream()
                .filter(e -> e.getVolumeId().equals(id.value())).toList();
        List<PillarVolumeState> state = states.get(id).stream().toList();
        return StaleGrants.of(agent, backend, export, state).stream().findFirst();
    }

    private void revoke(AgentTarget target, String agent, StaleGrants grant) {
        agents.reconcile(target, grant.revocation());
        driftSeen.remove(seen(agent, grant.export().getVolumeId()));
        String message = grant.message(agent);
        LOG.warning(() -> "PillarVolumeState " + grant.export().getVolumeId() + ": " + message);
        events.warning(grant.state(), grant.reason(), message);
    }
}
