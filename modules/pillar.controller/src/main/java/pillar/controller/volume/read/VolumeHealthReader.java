package pillar.controller.volume.read;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.logging.Logger;
import java.util.stream.IntStream;

import io.grpc.Status;
import pillar.api.agent.HealthBatch;
import pillar.api.agent.v1.GetVolumeHealthRequest;
import pillar.api.agent.v1.GetVolumesHealthRequest;
import pillar.api.agent.v1.VolumeHealthResult;
import pillar.api.csi.v1.VolumeCondition;
import pillar.runtime.exec.BoundedFanOut;
import pillar.runtime.server.CsiException;
import pillar.controller.agent.AgentClient;
import pillar.controller.agent.AgentException;
import pillar.controller.agent.AgentTarget;
import pillar.controller.crd.PillarVolumeState;
import pillar.controller.volume.AgentLocator;

/**
 * The condition of a volume, asked of its agent (one attempt with the read deadline) and judged by
 * {@link VolumeConditions}. It never fails: an agent that cannot be located, reached or asked is itself
 * the answer, an abnormal condition saying so. ControllerGetVolume asks one volume (GetVolumeHealth),
 * ListVolumes a page ({@link #forListing}), so that both report a volume's condition alike.
 */
public final class VolumeHealthReader {
    private static final Logger LOG = Logger.getLogger(VolumeHealthReader.class.getName());

    private final AgentClient agents;
    private final AgentLocator locator;

    public VolumeHealthReader(AgentClient agents, AgentLocator locator) {
        this.agents = agents;
        this.locator = locator;
    }

    /** The volume's condition now. */
    public VolumeCondition condition(PillarVolumeState state) {
        return condition(state, locate(state.getSpec().getAgent()));
    }

    /**
     * The conditions of a listing's page, in its order, each as {@link #condition} reads it. Each agent is
     * located once (one read of its PillarAgent) and asked once per {@link HealthBatch#MAX_ENTRIES} of its
     * volumes (GetVolumesHealth), {@link HealthBatch#AT_ONCE} calls at a time; an agent that answers
     * UNIMPLEMENTED (of before GetVolumesHealth) is asked per volume, {@link HealthBatch#AT_ONCE} at a time.
     */
    public List<VolumeCondition> forListing(List<PillarVolumeState> page) {
        Map<String, List<Integer>> byAgent = new LinkedHashMap<>();
        for (int i = 0; i < page.size(); i++) {
            byAgent.computeIfAbsent(page.get(i).getSpec().getAgent(), a -> new ArrayList<>()).add(i);
        }
        AtomicReferenceArray<VolumeCondition> out = new AtomicReferenceArray<>(page.size());
        Map<String, Located> located = new ConcurrentHashMap<>();
        List<Integer> unbatched = java.util.Collections.synchronizedList(new ArrayList<>());
        List<Runnable> batches = new ArrayList<>();
        byAgent.forEach((agent, volumes) -> {
            for (int from = 0; from < volumes.size(); from += HealthBatch.MAX_ENTRIES) {
                List<Integer> chunk = volumes.subList(from, Math.min(volumes.size(), from + HealthBatch.MAX_ENTRIES));
                batches.add(() -> {
                    if (!batch(page, chunk, located.computeIfAbsent(agent, this::locate), out)) {
                        unbatched.addAll(chunk);
                    }
                });
            }
        });
        atOnce(batches);
        atOnce(unbatched.stream().<Runnable>map(i -> () -> out.set(i, condition(page.get(i),
                located.get(page.get(i).getSpec().getAgent())))).toList());
        List<VolumeCondition> conditions = new ArrayList<>(page.size());
        for (int i = 0; i < page.size(); i++) {
            conditions.add(out.get(i));
        }
        return conditions;
    }

    /** Sets the chunk's conditions from one GetVolumesHealth call; false (none set) when the agent answered UNIMPLEMENTED. */
    private boolean batch(List<PillarVolumeState> page, List<Integer> chunk, Located agent, AtomicReferenceArray<VolumeCondition> out) {
        if (agent.target() == null) {
            chunk.forEach(i -> out.set(i, VolumeConditions.unreachable(page.get(i), agent.problem())));
            return true;
        }
        GetVolumesHealthRequest.Builder request = GetVolumesHealthRequest.newBuilder();
        chunk.forEach(i -> request.addVolumes(request(page.get(i))));
        try {
            List<VolumeHealthResult> results = agents.getVolumesHealth(agent.target(), request.build()).getResultsList();
            if (results.size() != chunk.size() || IntStream.range(0, chunk.size())
                    .anyMatch(k -> !results.get(k).getVolumeId().equals(request.getVolumes(k).getVolumeId()))) {
                throw new AgentException(AgentException.Kind.FAILED, "GetVolumesHealth", agent.target(), "answered "
                        + results.size() + " results, not one per volume asked in its order (" + chunk.size() + ")");
            }
            for (int k = 0; k < chunk.size(); k++) {
                out.set(chunk.get(k), condition(page.get(chunk.get(k)), results.get(k), agent.target()));
            }
            return true;
        } catch (AgentException e) {
            if (e.kind() == AgentException.Kind.UNSUPPORTED) {
                LOG.fine(() -> e.getMessage() + ": asking GetVolumeHealth per volume (an agent of before GetVolumesHealth)");
                return false;
            }
            LOG.fine(() -> e.getMessage());
            chunk.forEach(i -> out.set(i, VolumeConditions.unreachable(page.get(i), e.getMessage())));
            return true;
        }
    }

    /** One entry of GetVolumesHealth: its health, or its error read as GetVolumeHealth's own failure would be. */
    private static VolumeCondition condition(PillarVolumeState state, VolumeHealthResult result, AgentTarget agent) {
        if (result.hasHealth()) {
            return VolumeConditions.of(state, result.getHealth());
        }
        Status.Code code = result.hasError() ? Status.fromCodeValue(result.getError().getCode()).getCode() : Status.Code.UNKNOWN;
        String message = result.hasError() ? result.getError().getMessage() : "no result for the volume";
        return VolumeConditions.unreachable(state, new AgentException(AgentException.Kind.of(code), result.getError().getReason(),
                "GetVolumeHealth", agent, code + (message.isEmpty() ? "" : ": " + message), null).getMessage());
    }

    private VolumeCondition condition(PillarVolumeState state, Located agent) {
        if (agent.target() == null) {
            return VolumeConditions.unreachable(state, agent.problem());
        }
        try {
            return VolumeConditions.of(state, agents.getVolumeHealth(agent.target(), request(state)));
        } catch (AgentException e) {
            LOG.fine(() -> "GetVolumeHealth of " + state.getMetadata().getName() + ": " + e.getMessage());
            return VolumeConditions.unreachable(state, e.getMessage());
        }
    }

    private static GetVolumeHealthRequest request(PillarVolumeState state) {
        return GetVolumeHealthRequest.newBuilder().setVolumeId(state.getMetadata().getName()).setBackend(state.getSpec().getBackend())
                .build();
    }

    private Located locate(String agentName) {
        try {
            return new Located(locator.target(agentName), null);
        } catch (CsiException e) {
            return new Located(null, e.getMessage());
        }
    }

    /** Runs the tasks, {@link HealthBatch#AT_ONCE} at a time, and returns once all have. */
    private static void atOnce(List<Runnable> tasks) {
        try {
            BoundedFanOut.run(tasks, HealthBatch.AT_ONCE, "reading the volumes' conditions");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw CsiException.unavailable("interrupted while reading the volumes' conditions");
        }
    }

    /** Where an agent is dialled, or why it cannot be. */
    private record Located(AgentTarget target, String problem) {
    }
}
