package pillar.agent.state;

import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Function;
import java.util.stream.Collectors;

import pillar.agent.backend.BackendVolume;
import pillar.agent.backend.VolumeBackend;
import pillar.agent.configfs.NvmetTarget;
import pillar.agent.configfs.PortAddress;
import pillar.agent.configfs.SubsystemState;
import pillar.agent.export.ExportRecord;
import pillar.agent.export.ExportStore;
import pillar.agent.export.Exporter;
import pillar.api.value.Nqn;
import pillar.api.value.VolumeId;

/**
 * The operator's recovery of a lost or foreign state directory ({@code pillar-agent --config F
 * --recover-state}): rebuilds the export records from what the kernel really holds (each live
 * pillar-csi subsystem's namespace device, port address and allowed hosts), writes the state identity,
 * and changes nothing in the kernel or on the backends. The installation is the configured one (the
 * live exports of another installation's volumes are then left out: its own agent's), else the one the
 * live volumes carry (they must agree).
 *
 * <p>All or nothing: a subsystem it cannot account for (no volume of a configured backend on its
 * device, another installation's volume when none is configured, no or several ports) is reported and nothing is written,
 * so the agent keeps refusing until the operator has dealt with it. Records of volumes that are not
 * live are removed; fencing marks are kept as they are (after a lost directory there are none: the
 * first call with a token for a volume sets its mark again).
 */
public final class StateRecovery {
    private StateRecovery() {
    }

    /**
     * @param backendsFor the configured backends, owning the given installation's volumes
     * @return true when the state was rebuilt; false when nothing was written (why is on {@code out})
     */
    public static boolean run(Path stateDir, String node, Optional<InstallationId> configured, NvmetTarget target,
                              Function<InstallationId, Map<String, VolumeBackend>> backendsFor, Clock clock, PrintStream out) {
        Exporter exporter = new Exporter(target);
        List<Nqn> live = exporter.exportedSubsystems();
        List<String> problems = new ArrayList<>();
        Map<String, VolumeBackend> probe = backendsFor.apply(configured.orElse(InstallationId.EMBEDDED));
        Map<Nqn, VolumeId> volumes = new LinkedHashMap<>();
        live.forEach(nqn -> volume(nqn, problems).ifPresent(id -> volumes.put(nqn, id)));
        Map<VolumeId, Set<InstallationId>> ownersOf = new LinkedHashMap<>();
        volumes.values().forEach(id -> probe.values().forEach(b -> b.owner(id).ifPresent(owner ->
                ownersOf.computeIfAbsent(id, k -> new java.util.HashSet<>()).add(owner))));
        Set<InstallationId> owners = new TreeSet<>(Comparator.comparing(InstallationId::value));
        ownersOf.values().forEach(owners::addAll);
        InstallationId installation;
        if (configured.isPresent()) {
            installation = configured.get();
            // another installation's exports on this host are its own agent's: left out, never recorded here
            volumes.entrySet().removeIf(e -> {
                Set<InstallationId> of = ownersOf.getOrDefault(e.getValue(), Set.of());
                boolean others = !of.isEmpty() && !of.contains(installation);
                if (others) {
                    out.println("left " + e.getKey() + ": its volume is installation " + of + "'s, not " + installation + "'s");
                }
                return others;
            });
        } else if (owners.size() > 1) {
            problems.add("the live volumes carry several installations " + owners + ": set agent.installation-id to this agent's");
            installation = InstallationId.EMBEDDED;
        } else {
            installation = owners.stream().findFirst().orElseGet(InstallationId::random);
        }
        Map<String, VolumeBackend> backends = backendsFor.apply(installation);
        Map<VolumeId, ExportRecord> records = new LinkedHashMap<>();
        volumes.forEach((nqn, id) -> record(id, nqn, target, backends, problems).ifPresent(r -> records.put(id, r)));
        if (!problems.isEmpty()) {
            out.println("pillar-agent: the state was NOT recovered, nothing was written; deal with each of these and run again:");
            problems.forEach(p -> out.println("  - " + p));
            return false;
        }
        ExportStore store = new ExportStore(stateDir);
        for (ExportRecord stale : store.list(ExportRecord.class)) {
            if (!records.containsKey(stale.volume())) {
                store.delete(stale.volume());
                out.println("removed the record of " + stale.volume() + ": it is not exported in the kernel");
            }
        }
        records.values().forEach(record -> {
            store.write(record);
            out.println("recorded " + record.volume() + ": " + record.device() + " on " + record.address()
                    + (record.aclEnabled() ? " to " + record.allowedHosts().size() + " allowed host(s)" : " to any host"));
        });
        new StateIdentity(node, installation, clock.instant()).write(stateDir);
        out.println("pillar-agent: recovered " + records.size() + " export(s) of node " + node + ", installation " + installation
                + " into " + stateDir + "; restart the agent. Fencing marks that were lost are set again by the first"
                + " call with a token for each volume");
        return true;
    }

    private static Optional<VolumeId> volume(Nqn nqn, List<String> problems) {
        try {
            return Optional.of(ExportRecord.volumeOf(nqn));
        } catch (IllegalArgumentException e) {
            problems.add(nqn + ": not a volume's subsystem (" + e.getMessage() + ")");
            return Optional.empty();
        }
    }

    /** The record of one live subsystem, or empty with the problem added. */
    private static Optional<ExportRecord> record(VolumeId id, Nqn nqn, NvmetTarget target, Map<String, VolumeBackend> backends,
                                                 List<String> problems) {
        Optional<SubsystemState> state = target.inspect(nqn);
        if (state.isEmpty()) {
            problems.add(nqn + ": vanished while it was read");
            return Optional.empty();
        }
        Optional<SubsystemState.Namespace> namespace = state.get().namespace(Exporter.NSID);
        if (namespace.isEmpty() || namespace.get().devicePath().isEmpty()) {
            problems.add(nqn + ": has no namespace " + Exporter.NSID.value() + " with a device");
            return Optional.empty();
        }
        if (state.get().ports().size() != 1) {
            problems.add(nqn + ": is linked to " + state.get().ports().size() + " ports, not one: "
                    + state.get().ports().stream().map(SubsystemState.LinkedPort::address).toList());
            return Optional.empty();
        }
        Path device = Path.of(namespace.get().devicePath());
        List<String> holders = new ArrayList<>();
        for (Map.Entry<String, VolumeBackend> backend : backends.entrySet()) {
            backend.getValue().find(id).map(BackendVolume::device).filter(device::equals).ifPresent(d -> holders.add(backend.getKey()));
        }
        if (holders.size() != 1) {
            problems.add(nqn + ": its device " + device + " is " + (holders.isEmpty()
                    ? "not volume " + id + " of this installation on any configured backend" : "a volume of several backends " + holders));
            return Optional.empty();
        }
        SubsystemState.LinkedPort port = state.get().ports().getFirst();
        try {
            PortAddress address = PortAddress.tcp(port.traddr(), Integer.parseInt(port.trsvcid()), port.tls());
            Set<Nqn> hosts = state.get().allowedHosts().stream().map(Nqn::of).collect(Collectors.toSet());
            return Optional.of(new ExportRecord(id, holders.getFirst(), device, address, !state.get().allowAnyHost(), hosts));
        } catch (IllegalArgumentException e) {
            problems.add(nqn + ": " + e.getMessage());
            return Optional.empty();
        }
    }
}
