package pillar.controller.volume.read;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import pillar.api.agent.v1.GetVolumeHealthResponse;
import pillar.api.agent.v1.ThinPoolUsage;
import pillar.api.csi.v1.VolumeCondition;
import pillar.controller.crd.PillarVolumeState;
import pillar.controller.crd.PillarVolumeStateSpec;
import pillar.controller.crd.VolumePhase;
import pillar.controller.volume.state.Records;

/**
 * A volume's CSI VolumeCondition from what its agent reported (GetVolumeHealth). Pure functions.
 *
 * <p>Abnormal, with one sentence per cause, each naming the store, agent and backend and saying what
 * to do, when: the zvol or LV is gone; the volume is exported (phase Exported) but the agent holds no
 * export record, or the kernel's nvmet configfs differs from the record; the ZFS pool's health is not
 * ONLINE; the thin pool's data or metadata usage is above {@value #THIN_POOL_LIMIT} %; part of it could
 * not be read; the agent could not be reached ({@link #unreachable}). Normal otherwise, message "".
 */
public final class VolumeConditions {
    /** Usage of a thin pool's data or metadata above this (percent) is abnormal: writes fail once it is full. */
    public static final double THIN_POOL_LIMIT = 90;

    private VolumeConditions() {
    }

    /** The condition of the volume recorded by {@code state}, as its agent's {@code health} says. */
    public static VolumeCondition of(PillarVolumeState state, GetVolumeHealthResponse health) {
        PillarVolumeStateSpec spec = state.getSpec();
        List<String> causes = new ArrayList<>();
        String kind = "zfs-dataset".equals(spec.getBackendKind()) ? "dataset"
                : spec.getBackendKind() != null && spec.getBackendKind().startsWith("zfs") ? "zvol" : "LV";
        if (!health.getVolumePresent() && health.getUnreadableCount() == 0) {
            causes.add("its " + kind + " is gone from backend " + spec.getBackend() + " (removed outside pillar-csi?); its data is"
                    + " lost unless you restore it: list the backend's volumes on the storage node (lvs / zfs list) and"
                    + " delete the PersistentVolumeClaim once nothing needs it");
        }
        if (Records.phase(state) == VolumePhase.Exported && !health.getExportRecorded()) {
            causes.add("agent " + spec.getAgent() + " holds no export of it, so no node can attach it: check the PillarAgent's"
                    + " conditions (AgentStateMissing) and the agent's log");
        }
        if (health.getExportDriftCount() > 0) {
            causes.add("its export in the kernel (nvmet configfs, or nfsd's export table) differs from the agent's record (" + String.join("; ",
                    health.getExportDriftList()) + "): the controller re-applies it when its next poll of the store still"
                    + " finds it (event ExportDriftRepaired); if it stays, the kernel refuses the re-apply: see the log of"
                    + " pillar-agent on " + spec.getAgent() + ", or restart pillar-agent on " + spec.getAgent()
                    + ", which re-applies every recorded export at start-up");
        }
        if (!health.getPoolHealth().isEmpty() && !health.getPoolHealth().equals("ONLINE")) {
            causes.add("its ZFS pool is " + health.getPoolHealth() + ": run 'zpool status -x' on the storage node of agent "
                    + spec.getAgent() + " and replace or bring back the failed devices");
        }
        if (health.hasThinPool()) {
            thinPool(health.getThinPool(), spec).ifPresent(causes::add);
        }
        health.getUnreadableList().forEach(u -> causes.add("agent " + spec.getAgent() + " could not tell: " + u));
        if (causes.isEmpty()) {
            return normal();
        }
        return abnormal(state, String.join("; ", causes));
    }

    /** The volume's agent could not be asked: nothing is known of the volume, which nodes may not reach either. */
    public static VolumeCondition unreachable(PillarVolumeState state, String why) {
        return abnormal(state, "agent " + state.getSpec().getAgent() + " cannot be reached (" + why + "): check that pillar-agent"
                + " runs on the storage node, its PillarAgent's AgentConnected condition, and the network between them");
    }

    /** Nothing wrong was found. */
    public static VolumeCondition normal() {
        return VolumeCondition.newBuilder().setAbnormal(false).setMessage("").build();
    }

    private static java.util.Optional<String> thinPool(ThinPoolUsage usage, PillarVolumeStateSpec spec) {
        List<String> full = new ArrayList<>();
        if (usage.getDataPercent() > THIN_POOL_LIMIT) {
            full.add("data " + percent(usage.getDataPercent()));
        }
        if (usage.getMetadataPercent() > THIN_POOL_LIMIT) {
            full.add("metadata " + percent(usage.getMetadataPercent()));
        }
        if (full.isEmpty()) {
            return java.util.Optional.empty();
        }
        return java.util.Optional.of("its thin pool " + usage.getName() + " is nearly full (" + String.join(", ", full) + " used,"
                + " above " + percent(THIN_POOL_LIMIT) + "): writes fail once it is full; grow it on the storage node (lvextend"
                + (full.size() == 1 && full.get(0).startsWith("metadata") ? " --poolmetadatasize" : "") + " " + usage.getName()
                + ") or free space in it");
    }

    private static String percent(double value) {
        return String.format(Locale.ROOT, "%.1f %%", value);
    }

    private static VolumeCondition abnormal(PillarVolumeState state, String causes) {
        PillarVolumeStateSpec spec = state.getSpec();
        return VolumeCondition.newBuilder().setAbnormal(true).setMessage("volume " + state.getMetadata().getName()
                + " on PillarStore " + spec.getStore() + " (agent " + spec.getAgent() + ", backend " + spec.getBackend() + "): "
                + causes).build();
    }
}
