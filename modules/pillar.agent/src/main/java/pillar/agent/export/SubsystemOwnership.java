package pillar.agent.export;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.logging.Logger;

import pillar.agent.backend.VolumeBackend;
import pillar.api.value.Nqn;
import pillar.api.value.VolumeId;

/**
 * Which of the kernel's pillar-csi subsystems belong to this agent's installation: those whose volume
 * one of its backends holds (backends own only their installation's volumes, by tag or property). A
 * subsystem holds its volume's device open, so the volume exists while the subsystem does; one that
 * no backend holds is another installation's on the same host (or an operator's) and is never
 * touched. Where a backend cannot be read now, the subsystems it might hold are {@linkplain
 * #unknown unknown}: neither pruned nor taken for another's.
 *
 * @param ours    held by a backend of this installation
 * @param foreign held by none, every backend read
 * @param unknown held by none of the backends read, and some could not be read
 */
public record SubsystemOwnership(List<Nqn> ours, List<Nqn> foreign, List<Nqn> unknown) {
    private static final Logger LOG = Logger.getLogger(SubsystemOwnership.class.getName());

    public SubsystemOwnership {
        ours = List.copyOf(ours);
        foreign = List.copyOf(foreign);
        unknown = List.copyOf(unknown);
    }

    /** The subsystems that may be this installation's: {@link #ours} and {@link #unknown}. */
    public List<Nqn> possiblyOurs() {
        List<Nqn> all = new ArrayList<>(ours);
        all.addAll(unknown);
        return all;
    }

    /** Sorts {@code live} (pillar-csi subsystems) by whether {@code backends} hold their volumes. */
    public static SubsystemOwnership of(Collection<Nqn> live, Map<String, VolumeBackend> backends) {
        Map<VolumeId, Nqn> byVolume = new HashMap<>();
        List<Nqn> foreign = new ArrayList<>();
        for (Nqn nqn : live) {
            volumeOf(nqn).ifPresentOrElse(v -> byVolume.put(v, nqn), () -> foreign.add(nqn));
        }
        if (byVolume.isEmpty()) {
            return new SubsystemOwnership(List.of(), foreign, List.of());
        }
        Set<VolumeId> held = new HashSet<>();
        boolean unreadable = false;
        for (Map.Entry<String, VolumeBackend> backend : backends.entrySet()) {
            try {
                held.addAll(backend.getValue().findAll(byVolume.keySet()).keySet());
            } catch (RuntimeException e) {
                unreadable = true;
                LOG.warning("backend " + backend.getKey() + " cannot be read (" + e.getMessage()
                        + "): the subsystems it might hold are neither pruned nor taken for another installation's");
            }
        }
        List<Nqn> ours = new ArrayList<>();
        List<Nqn> unknown = new ArrayList<>();
        for (Map.Entry<VolumeId, Nqn> e : byVolume.entrySet()) {
            if (held.contains(e.getKey())) {
                ours.add(e.getValue());
            } else if (unreadable) {
                unknown.add(e.getValue());
            } else {
                foreign.add(e.getValue());
            }
        }
        return new SubsystemOwnership(ours, foreign, unknown);
    }

    /** The volume a pillar-csi subsystem is named after; empty for a name no volume of this driver has. */
    private static Optional<VolumeId> volumeOf(Nqn subsystem) {
        try {
            return Optional.of(ExportRecord.volumeOf(subsystem));
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
    }
}
