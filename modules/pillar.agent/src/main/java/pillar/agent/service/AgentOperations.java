package pillar.agent.service;

import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.logging.Logger;

import pillar.agent.backend.BackendException;
import pillar.agent.backend.BackendProblem;
import pillar.agent.backend.BackendVolume;
import pillar.agent.backend.VolumeBackend;
import pillar.agent.configfs.PortAddress;
import pillar.agent.export.ExportRecord;
import pillar.agent.export.ExportStore;
import pillar.agent.export.Exporter;
import pillar.agent.fencing.Fence;
import pillar.api.fencing.Fencing.Intent;
import pillar.api.fencing.FencingToken;
import pillar.api.value.ByteSize;
import pillar.api.value.InvalidValueException;
import pillar.api.value.Nqn;
import pillar.api.value.VolumeId;

/**
 * What the agent does, on validated values, under fencing. Each volume-changing operation is
 * fenced by the volume's token and serialized per volume; every one is idempotent.
 *
 * <p>Ordering rules that keep a crash at any instant recoverable:
 * <ul>
 *   <li>export: the durable record is written before configfs, so a restart re-applies it;</li>
 *   <li>unexport: the record is removed before configfs, so a restart never resurrects it (the
 *       start-up reconcile removes pillar subsystems that have no record);</li>
 *   <li>delete: unexport, then destroy, then the tombstone (see {@link Fence}).</li>
 * </ul>
 */
public final class AgentOperations {
    private static final Logger LOG = Logger.getLogger(AgentOperations.class.getName());

    private final Map<String, VolumeBackend> backends;
    private final Fence fence;
    private final ExportStore exports;
    private final Exporter exporter;

    public AgentOperations(Map<String, VolumeBackend> backends, Fence fence, ExportStore exports, Exporter exporter) {
        this.backends = Map.copyOf(backends);
        this.fence = fence;
        this.exports = exports;
        this.exporter = exporter;
    }

    public VolumeBackend backend(String name) {
        VolumeBackend backend = backends.get(name);
        if (backend == null) {
            throw new InvalidValueException("backend", "'" + printable(name) + "' is not configured on this agent; it has "
                    + backends.keySet().stream().sorted().toList());
        }
        return backend;
    }

    /** Why the configured backend {@code name} refuses new volumes now; empty when it serves or is not built. */
    public Optional<BackendProblem> problem(String name) {
        return Optional.ofNullable(backends.get(name)).flatMap(VolumeBackend::problem);
    }

    public BackendVolume create(Optional<FencingToken> token, VolumeId id, String backendName, ByteSize size,
                                Map<String, String> options, VolumeBackend.NonZeroingPool nonZeroing) {
        VolumeBackend backend = backend(backendName);
        if (size.bytes() == 0) {
            throw new InvalidValueException("size_bytes", "must be greater than 0");
        }
        return fence.run(id, token, Intent.CHANGE, done -> backend.create(id, size, options, nonZeroing));
    }

    public void delete(Optional<FencingToken> token, VolumeId id, String backendName) {
        VolumeBackend backend = backend(backendName);
        fence.run(id, token, Intent.END, done -> {
            if (!done) {
                unexportLocked(id);
                backend.delete(id);
                LOG.info("deleted; lifecycle ended");
            }
            return null;
        });
    }

    public ByteSize expand(Optional<FencingToken> token, VolumeId id, String backendName, ByteSize required) {
        VolumeBackend backend = backend(backendName);
        return fence.run(id, token, Intent.CHANGE, done -> {
            ByteSize grown = backend.expand(id, required);
            exports.read(id).ifPresent(exporter::revalidate);
            return grown;
        });
    }

    public ExportRecord export(Optional<FencingToken> token, VolumeId id, String backendName, PortAddress address,
                               boolean aclEnabled) {
        VolumeBackend backend = backend(backendName);
        return fence.run(id, token, Intent.CHANGE, done -> {
            BackendVolume volume = existingVolume(backend, backendName, id);
            Optional<ExportRecord> existing = exports.read(id);
            ExportRecord wanted = new ExportRecord(id, backendName, volume.device(), address, aclEnabled,
                    existing.map(ExportRecord::allowedHosts).orElse(Set.of()));
            if (existing.isPresent() && !sameExport(existing.get(), wanted)) {
                throw new IllegalStateException("volume " + id + " is already exported as " + describe(existing.get())
                        + "; unexport it before exporting it as " + describe(wanted));
            }
            exports.write(wanted);
            exporter.apply(wanted);
            return wanted;
        });
    }

    public void unexport(Optional<FencingToken> token, VolumeId id) {
        fence.run(id, token, Intent.CHANGE, done -> {
            unexportLocked(id);
            return null;
        });
    }

    public void allow(Optional<FencingToken> token, VolumeId id, Nqn host) {
        fence.run(id, token, Intent.CHANGE, done -> {
            ExportRecord record = exported(id);
            if (!record.aclEnabled()) {
                return null; // any host may connect already
            }
            Set<Nqn> hosts = new HashSet<>(record.allowedHosts());
            if (hosts.add(host)) {
                exports.write(record.withAllowedHosts(hosts));
            }
            exporter.allow(record, host);
            return null;
        });
    }

    public void deny(Optional<FencingToken> token, VolumeId id, Nqn host) {
        fence.run(id, token, Intent.CHANGE, done -> {
            Optional<ExportRecord> record = exports.read(id);
            if (record.isEmpty() || !record.get().aclEnabled()) {
                return null;
            }
            Set<Nqn> hosts = new HashSet<>(record.get().allowedHosts());
            if (hosts.remove(host)) {
                exports.write(record.get().withAllowedHosts(hosts));
            }
            exporter.disallow(record.get(), host);
            return null;
        });
    }

    /**
     * Brings one volume's export to the desired state: absent means not exported; present means
     * exported with exactly that address, ACL setting and allowed hosts (an export with another
     * address or ACL setting is removed and made again). Returns what was changed, in words.
     */
    public List<String> reconcile(Optional<FencingToken> token, VolumeId id, Optional<Desired> desired) {
        return fence.run(id, token, Intent.CHANGE, done -> {
            List<String> changes = new java.util.ArrayList<>();
            Optional<ExportRecord> existing = exports.read(id);
            if (desired.isEmpty()) {
                if (existing.isPresent()) {
                    unexportLocked(id);
                    changes.add("unexported " + describe(existing.get()));
                }
                return changes;
            }
            Desired want = desired.get();
            VolumeBackend backend = backend(want.backend());
            BackendVolume volume = existingVolume(backend, want.backend(), id);
            ExportRecord wanted = new ExportRecord(id, want.backend(), volume.device(), want.address(),
                    want.aclEnabled(), want.aclEnabled() ? want.allowedHosts() : Set.of());
            if (existing.isPresent() && !sameExport(existing.get(), wanted)) {
                unexportLocked(id);
                changes.add("unexported " + describe(existing.get()));
                existing = Optional.empty();
            }
            exports.write(wanted);
            exporter.apply(wanted);
            if (existing.isEmpty()) {
                changes.add("exported " + describe(wanted));
            }
            Set<Nqn> before = existing.map(ExportRecord::allowedHosts).orElse(Set.of());
            for (Nqn host : before) {
                if (!wanted.allowedHosts().contains(host)) {
                    exporter.disallow(wanted, host);
                    changes.add("denied " + host);
                }
            }
            for (Nqn host : wanted.allowedHosts()) {
                if (!before.contains(host)) {
                    changes.add("allowed " + host);
                }
            }
            return changes;
        });
    }

    /** A desired export, for {@link #reconcile}. */
    public record Desired(String backend, PortAddress address, boolean aclEnabled, Set<Nqn> allowedHosts) {
    }

    public List<ExportRecord> listExports() {
        return exports.list();
    }

    /** The differences between a durable export and the kernel, in words. */
    public List<String> drift(ExportRecord record) {
        return exporter.drift(record);
    }

    private static BackendVolume existingVolume(VolumeBackend backend, String backendName, VolumeId id) {
        return backend.find(id).orElseThrow(() -> new BackendException(
                BackendException.Kind.NOT_FOUND, "volume " + id + " does not exist on backend " + backendName));
    }

    private ExportRecord exported(VolumeId id) {
        return exports.read(id).orElseThrow(() -> new IllegalStateException(
                "volume " + id + " is not exported; export it first"));
    }

    /** Must hold the volume's lock. Record first, kernel second (see the class comment). */
    private void unexportLocked(VolumeId id) {
        exports.delete(id);
        exporter.remove(ExportRecord.subsystemNqn(id));
    }

    private static boolean sameExport(ExportRecord a, ExportRecord b) {
        return a.backend().equals(b.backend()) && a.device().equals(b.device()) && a.address().equals(b.address())
                && a.aclEnabled() == b.aclEnabled();
    }

    private static String describe(ExportRecord record) {
        return record.address() + (record.aclEnabled() ? " with ACL" : " open to any host") + " on " + record.device();
    }

    private static String printable(String value) {
        return value.chars().allMatch(c -> c > 0x20 && c < 0x7f) && value.length() <= 64 ? value : "<invalid>";
    }
}
