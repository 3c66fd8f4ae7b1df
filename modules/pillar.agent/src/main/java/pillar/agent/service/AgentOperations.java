package pillar.agent.service;

import java.time.Instant;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;
import java.util.logging.Logger;

import pillar.agent.backend.BackendException;
import pillar.agent.backend.BackendProblem;
import pillar.agent.backend.BackendSnapshot;
import pillar.agent.backend.BackendVolume;
import pillar.agent.backend.VolumeBackend;
import pillar.agent.backend.VolumeSource;
import pillar.agent.configfs.ConfigfsNvmetTarget;
import pillar.agent.configfs.HostAuth;
import pillar.agent.configfs.PortAddress;
import pillar.agent.export.ExportRecord;
import pillar.agent.export.ExportStore;
import pillar.agent.export.Exporter;
import pillar.agent.export.Exporters;
import pillar.agent.export.NfsExportRecord;
import pillar.agent.export.NfsExporter;
import pillar.agent.export.ProtocolExporter;
import pillar.agent.export.VolumeExport;
import pillar.agent.nfs.NfsAccess;
import pillar.agent.nfs.NfsClient;
import pillar.agent.nfs.NfsSquash;
import pillar.agent.nfs.NfsTransport;
import pillar.agent.nfs.StateRelease;
import pillar.agent.export.RecordedAuth;
import pillar.agent.fencing.Fence;
import pillar.agent.fencing.MarkStore;
import pillar.api.agent.v1.AgentErrorReason;
import pillar.api.fencing.Fencing.Intent;
import pillar.api.fencing.FencingToken;
import pillar.api.value.ByteSize;
import pillar.api.value.InvalidValueException;
import pillar.api.value.Nqn;
import pillar.api.value.TlsPsk;
import pillar.api.value.SnapshotId;
import pillar.api.value.VolumeId;
import pillar.runtime.durable.DamagedRecordException;

/**
 * What the agent does, on validated values, under fencing. Each volume-changing operation is
 * fenced by the volume's token and serialized per volume; every one is idempotent. The kernel side of
 * an export goes through its protocol's {@link ProtocolExporter} (NVMe-oF: {@link Exporter}, NFS:
 * {@link NfsExporter}); reads, drift and unexport take a volume's record whatever its protocol.
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
    private final Fence snapshotFence;
    private final ExportStore exports;
    private final Exporter exporter;
    private final NfsExporter nfs;
    private final Exporters protocols;

    /**
     * @param snapshotFence fences snapshot calls by the snapshot's own token, over marks kept apart
     *                      from the volumes' ({@link pillar.agent.fencing.MarkStore#snapshots})
     */
    public AgentOperations(Map<String, VolumeBackend> backends, Fence fence, Fence snapshotFence, ExportStore exports,
                           Exporter exporter, NfsExporter nfs) {
        this.nfs = nfs;
        this.backends = Map.copyOf(backends);
        this.fence = fence;
        this.snapshotFence = snapshotFence;
        this.exports = exports;
        this.exporter = exporter;
        this.protocols = new Exporters(List.of(exporter, nfs));
    }

    public VolumeBackend backend(String name) {
        VolumeBackend backend = backends.get(name);
        if (backend == null) {
            throw new InvalidValueException("backend", "'" + printable(name) + "' is not configured on this agent; it has "
                    + backends.keySet().stream().sorted().toList());
        }
        return backend;
    }

    /** The configured backend {@code name} as built on this host; empty when it is not built. */
    public Optional<VolumeBackend> built(String name) {
        return Optional.ofNullable(backends.get(name));
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

    /**
     * {@link #create} with content: a restore of a snapshot or a clone of a volume, fenced by the new volume's
     * token. A clone also holds its source volume's lock, so that a delete of the source (which zeroes an
     * LVM linear LV) never runs under the block copy reading it: for the whole call, and, where the backend
     * copies in the background past the call (LVM linear), the backend itself refuses the source's delete
     * and expand while the copy runs (BUSY, which is ABORTED) and answers the clone's calls BUSY with the
     * progress until it is whole; the copy is registered under this lock, so a delete of the source waits
     * for the registration and then sees it. Lock order: the source's, then the new volume's.
     */
    public BackendVolume create(Optional<FencingToken> token, VolumeId id, String backendName, ByteSize size,
                                Map<String, String> options, VolumeBackend.NonZeroingPool nonZeroing, VolumeSource source) {
        VolumeBackend backend = backend(backendName);
        if (size.bytes() == 0) {
            throw new InvalidValueException("size_bytes", "must be greater than 0");
        }
        Supplier<BackendVolume> create = () -> fence.run(id, token, Intent.CHANGE, done -> backend.create(id, size, options, nonZeroing,
                source));
        return source instanceof VolumeSource.FromVolume clone ? fence.locked(clone.volume(), create) : create.get();
    }

    /**
     * Brings an existing volume of the backend under this installation ({@link VolumeBackend#adopt}), fenced as
     * {@link #create} is (CHANGE, the new lifecycle's token); what the kernel exports is asked of every export
     * protocol ({@link Exporters}). A retry returns the adopted volume.
     */
    public BackendVolume adopt(Optional<FencingToken> token, VolumeId id, String backendName, ByteSize minSize) {
        VolumeBackend backend = backend(backendName);
        return fence.run(id, token, Intent.CHANGE, done -> backend.adopt(id, minSize, protocols));
    }

    /**
     * Takes a snapshot, fenced by the snapshot's token (CHANGE) and holding the source volume's lock, so
     * it never races a delete of the source. Lock order: the source volume's, then the snapshot's.
     */
    public BackendSnapshot createSnapshot(Optional<FencingToken> token, SnapshotId id, String backendName,
                                          VolumeId source) {
        VolumeBackend backend = backend(backendName);
        return fence.locked(source, () -> snapshotFence.run(MarkStore.key(id), token, Intent.CHANGE,
                done -> backend.snapshot(id, source)));
    }

    /**
     * Deletes a snapshot and ends its lifecycle (tombstone after success), under its source volume's
     * lock when the snapshot still exists. A repeated delete of an ended lifecycle changes nothing.
     */
    public void deleteSnapshot(Optional<FencingToken> token, SnapshotId id, String backendName) {
        VolumeBackend backend = backend(backendName);
        Optional<VolumeId> source = backend.findSnapshot(id).map(BackendSnapshot::source);
        Supplier<Void> delete = () -> snapshotFence.run(MarkStore.key(id), token, Intent.END, done -> {
            if (!done) {
                backend.deleteSnapshot(id);
                LOG.info("snapshot " + id + " deleted; lifecycle ended");
            }
            return null;
        });
        if (source.isPresent()) {
            fence.locked(source.get(), delete);
        } else {
            delete.get();
        }
    }

    public List<BackendSnapshot> listSnapshots(String backendName) {
        return backend(backendName).listSnapshots();
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
            exports.read(id, ExportRecord.class).ifPresent(exporter::revalidate);
            return grown;
        });
    }

    /**
     * Exports the volume. With {@code authRequired} every host must authenticate in-band: refused with
     * FAILED_PRECONDITION (reason NVME_AUTH_UNSUPPORTED) on a kernel without nvmet authentication, and only with an ACL.
     */
    public ExportRecord export(Optional<FencingToken> token, VolumeId id, String backendName, PortAddress address,
                               boolean aclEnabled, boolean authRequired) {
        VolumeBackend backend = backend(backendName);
        if (authRequired && !aclEnabled) {
            throw new InvalidValueException("export.auth_required", "needs acl_enabled: the kernel authenticates only"
                    + " the hosts a subsystem lists, never when it admits any host");
        }
        if (address.tls() && !aclEnabled) {
            throw new InvalidValueException("export.tls_required", "needs acl_enabled: each host's TLS key is given"
                    + " with its AllowInitiator");
        }
        return fence.run(id, token, Intent.CHANGE, done -> {
            if (authRequired) {
                requireAuth();
            }
            if (address.tls()) {
                requireTls();
            }
            BackendVolume volume = existingVolume(backend, backendName, id);
            if (volume.isFilesystem()) {
                throw new InvalidValueException("export.protocol", "volume " + id + " on backend " + backendName
                        + " is a filesystem dataset: it is exported over NFS only");
            }
            Optional<ExportRecord> existing = exports.read(id, ExportRecord.class);
            ExportRecord wanted = new ExportRecord(id, backendName, volume.device(), address, aclEnabled,
                    existing.map(ExportRecord::allowedHosts).orElse(Set.of()), authRequired,
                    existing.map(ExportRecord::auth).orElse(Map.of()),
                    existing.filter(e -> e.address().equals(address)).map(ExportRecord::psks).orElse(Map.of()));
            if (existing.isPresent() && !existing.get().sameExport(wanted)) {
                throw new AgentRefusal(AgentErrorReason.AGENT_ERROR_REASON_EXPORT_CONFLICT, "volume " + id + " is already exported as "
                        + existing.get().describe() + "; unexport it before exporting it as " + wanted.describe());
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

    /**
     * Allows the host on the volume's export; with {@code auth} it must authenticate in-band with those
     * keys (a new value replaces the old: rotation). An export with {@code auth_required} refuses a
     * host without keys (INVALID_ARGUMENT); keys on a kernel without authentication are
     * FAILED_PRECONDITION (reason NVME_AUTH_UNSUPPORTED). The record is written (with the keys) before the kernel.
     */
    public void allow(Optional<FencingToken> token, VolumeId id, Nqn host, Optional<HostAuth> auth) {
        allow(token, id, host, auth, false, Optional.empty());
    }

    /**
     * {@link #allow(Optional, VolumeId, Nqn, Optional)}; with {@code exclusive} the export admits this host
     * alone afterwards (the record first, then {@link Exporter#allow} exclusive: every other host is removed and
     * its connections dropped and drained). An exclusive allow on an export that admits any host is
     * refused (FAILED_PRECONDITION): such an export cannot keep a host out.
     */
    public void allow(Optional<FencingToken> token, VolumeId id, Nqn host, Optional<HostAuth> auth, boolean exclusive) {
        allow(token, id, host, auth, exclusive, Optional.empty());
    }

    /**
     * {@link #allow(Optional, VolumeId, Nqn, Optional, boolean)} with the host's TLS pre-shared key: required on a
     * TLS export and refused on another (INVALID_ARGUMENT); recorded with the host, put where the target's
     * handshake finds it before the host is admitted, removed when the host is denied.
     */
    public void allow(Optional<FencingToken> token, VolumeId id, Nqn host, Optional<HostAuth> auth, boolean exclusive,
                      Optional<TlsPsk> psk) {
        fence.run(id, token, Intent.CHANGE, done -> {
            refuse(id, NfsExportRecord.class, "host_nqn", "NFS: give client_address, not a host NQN");
            ExportRecord record = exported(id);
            if (exclusive && !record.aclEnabled()) {
                throw new AgentRefusal(AgentErrorReason.AGENT_ERROR_REASON_EXPORT_CONFLICT, "volume " + id + " is exported to any host (acl_enabled false): it cannot"
                        + " be given to one host alone; export it with acl_enabled");
            }
            if (record.address().tls() && psk.isEmpty()) {
                throw new InvalidValueException("tls_psk", "volume " + id + " is exported with tls_required: every host"
                        + " needs its TLS pre-shared key");
            }
            if (!record.address().tls() && psk.isPresent()) {
                throw new InvalidValueException("tls_psk", "volume " + id + " is exported without tls_required: its"
                        + " port takes no TLS key");
            }
            if (record.authRequired() && auth.isEmpty()) {
                throw new InvalidValueException("auth", "volume " + id + " is exported with auth_required: every host"
                        + " needs its DH-HMAC-CHAP keys");
            }
            if (!record.aclEnabled()) {
                if (auth.isPresent()) {
                    throw new InvalidValueException("auth", "volume " + id + " is exported to any host, which the"
                            + " kernel never authenticates; export it with acl_enabled");
                }
                return null; // any host may connect already
            }
            if (auth.isPresent()) {
                requireAuth();
            }
            ExportRecord updated = withHost(exclusive ? alone(record, host) : record, host, auth);
            if (psk.isPresent() && !psk.get().equals(updated.psks().get(host))) {
                updated = updated.withHostPsk(host, psk.get());
            }
            if (!updated.equals(record)) {
                exports.write(updated);
            }
            exporter.allow(updated, host, exclusive);
            return null;
        });
    }

    /** The record with every host but {@code host} (and their keys) left out. */
    private static ExportRecord alone(ExportRecord record, Nqn host) {
        return record.withAllowedHosts(record.allowedHosts().contains(host) ? Set.of(host) : Set.of());
    }

    /** The record with the host allowed; its keys keep their time when unchanged, so a retry is no rotation. */
    private static ExportRecord withHost(ExportRecord record, Nqn host, Optional<HostAuth> auth) {
        if (auth.isEmpty()) {
            Set<Nqn> hosts = new HashSet<>(record.allowedHosts());
            hosts.add(host);
            return record.withAllowedHosts(hosts);
        }
        RecordedAuth before = record.auth().get(host);
        if (before != null && before.auth().equals(auth.get())) {
            return record;
        }
        return record.withHostAuth(host, new RecordedAuth(auth.get(), Instant.now()));
    }

    /** Whether the kernel's nvmet authenticates hosts in-band; false when it cannot tell (nvmet missing). */
    public boolean authSupported() {
        try {
            return exporter.authSupported();
        } catch (RuntimeException e) {
            LOG.warning("cannot tell whether nvmet has DH-HMAC-CHAP: " + e.getMessage());
            return false;
        }
    }

    /** Whether the kernel's nvmet can require TLS on its ports with keys in its keyring; false when it cannot tell. */
    public boolean tlsSupported() {
        try {
            return exporter.tlsSupported();
        } catch (RuntimeException e) {
            LOG.warning("cannot tell whether nvmet has NVMe/TCP TLS: " + e.getMessage());
            return false;
        }
    }

    /** Why NFS exports cannot require RPC-with-TLS here; empty when they can; the reason when it cannot tell. */
    public Optional<String> nfsTlsProblem() {
        try {
            return nfs.tlsProblem();
        } catch (RuntimeException e) {
            LOG.warning("cannot tell whether nfsd has RPC-with-TLS: " + e.getMessage());
            return Optional.of("cannot tell whether nfsd has RPC-with-TLS: " + e.getMessage());
        }
    }

    /** {@link NfsTransport#TLS} where nfsd or its tools cannot require it: FAILED_PRECONDITION, NFS_TLS_UNSUPPORTED. */
    private void requireNfsTransport(NfsTransport transport) {
        if (transport == NfsTransport.TLS) {
            nfsTlsProblem().ifPresent(problem -> {
                throw new AgentRefusal(AgentErrorReason.AGENT_ERROR_REASON_NFS_TLS_UNSUPPORTED, problem
                        + "; export without tls_required, or give the storage node a kernel and nfs-utils with RPC-with-TLS");
            });
        }
    }

    private void requireTls() {
        if (!exporter.tlsSupported()) {
            throw new AgentRefusal(AgentErrorReason.AGENT_ERROR_REASON_NVME_TLS_UNSUPPORTED, ConfigfsNvmetTarget.NO_TLS_MESSAGE
                    + ", or its .nvme keyring is missing; export without tls_required or run a kernel with it");
        }
    }

    private void requireAuth() {
        if (!exporter.authSupported()) {
            throw new AgentRefusal(AgentErrorReason.AGENT_ERROR_REASON_NVME_AUTH_UNSUPPORTED, ConfigfsNvmetTarget.NO_AUTH_MESSAGE
                    + "; export without auth_required or run a kernel with it");
        }
    }

    public void deny(Optional<FencingToken> token, VolumeId id, Nqn host) {
        fence.revoke(id, token, done -> {
            refuse(id, NfsExportRecord.class, "host_nqn", "NFS: give client_address, not a host NQN");
            Optional<ExportRecord> record;
            try {
                record = exports.read(id, ExportRecord.class);
            } catch (DamagedRecordException damaged) {
                // the record cannot say what is exported, but the subsystem is named after the volume: the
                // fence holds in the kernel, and the record stays for the operator
                LOG.warning("volume " + id + ": denying " + host + " in the kernel although its export record is damaged ("
                        + damaged.getMessage() + ")");
                exporter.disallow(ExportRecord.subsystemNqn(id), host);
                return null;
            }
            if (record.isEmpty() || !record.get().aclEnabled()) {
                return null;
            }
            Set<Nqn> hosts = new HashSet<>(record.get().allowedHosts());
            if (hosts.remove(host)) {
                exports.write(record.get().withAllowedHosts(hosts));
            }
            exporter.deny(record.get(), host);
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
            if (desired.isEmpty()) {
                Optional<VolumeExport> any = exports.read(id);
                if (any.isPresent()) {
                    unexportLocked(id);
                    changes.add("unexported " + any.get().describe());
                }
                return changes;
            }
            Optional<ExportRecord> existing = exports.read(id, ExportRecord.class);
            Desired want = desired.get();
            if (want.authRequired() && !want.aclEnabled()) {
                throw new InvalidValueException("desired.export.auth_required", "needs acl_enabled");
            }
            if (want.authRequired()) {
                requireAuth();
            }
            if (want.address().tls()) {
                if (!want.aclEnabled()) {
                    throw new InvalidValueException("desired.export.tls_required", "needs acl_enabled");
                }
                requireTls();
            }
            VolumeBackend backend = backend(want.backend());
            BackendVolume volume = existingVolume(backend, want.backend(), id);
            ExportRecord wanted = new ExportRecord(id, want.backend(), volume.device(), want.address(),
                    want.aclEnabled(), want.aclEnabled() ? want.allowedHosts() : Set.of(), want.authRequired(), Map.of());
            if (existing.isPresent() && !existing.get().sameExport(wanted)) {
                unexportLocked(id);
                changes.add("unexported " + existing.get().describe());
                existing = Optional.empty();
            }
            // keys come only from AllowInitiator: kept for the hosts still wanted; with auth_required a
            // host without keys is left out (admitting it by NQN alone would bypass authentication)
            Map<Nqn, RecordedAuth> keys = new HashMap<>(existing.map(ExportRecord::auth).orElse(Map.of()));
            keys.keySet().retainAll(wanted.allowedHosts());
            Map<Nqn, TlsPsk> psks = new HashMap<>(existing.map(ExportRecord::psks).orElse(Map.of()));
            psks.keySet().retainAll(wanted.allowedHosts());
            Set<Nqn> admitted = new HashSet<>(wanted.allowedHosts());
            if (want.address().tls()) {
                for (Nqn host : wanted.allowedHosts()) {
                    if (!psks.containsKey(host)) {
                        admitted.remove(host);
                        changes.add("left out " + host + ": no TLS key (AllowInitiator with tls_psk adds it)");
                    }
                }
            }
            if (want.authRequired()) {
                for (Nqn host : wanted.allowedHosts()) {
                    if (!keys.containsKey(host)) {
                        admitted.remove(host);
                        changes.add("left out " + host + ": no DH-HMAC-CHAP keys (AllowInitiator with auth adds it)");
                    }
                }
            }
            keys.keySet().retainAll(admitted);
            psks.keySet().retainAll(admitted);
            wanted = new ExportRecord(id, want.backend(), volume.device(), want.address(), want.aclEnabled(), admitted,
                    want.authRequired(), keys, psks);
            exports.write(wanted);
            exporter.apply(wanted);
            if (existing.isEmpty()) {
                changes.add("exported " + wanted.describe());
            }
            Set<Nqn> before = existing.map(ExportRecord::allowedHosts).orElse(Set.of());
            for (Nqn host : before) {
                if (!wanted.allowedHosts().contains(host)) {
                    exporter.deny(wanted, host);
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

    /**
     * Exports the volume's dataset over NFS from {@code server} with {@code squash} and {@code transport}: the record
     * (clients kept from an existing one) first, then nfsd. An export of the same path, server, squash and transport is
     * returned as it is (re-applied); one of another, or an NVMe-oF export of the volume, is FAILED_PRECONDITION:
     * unexport it first. RPC-with-TLS where nfsd or its tools cannot require it is FAILED_PRECONDITION
     * ({@code NFS_TLS_UNSUPPORTED}), nothing written.
     */
    public NfsExportRecord exportNfs(Optional<FencingToken> token, VolumeId id, String backendName, NfsClient server,
                                     NfsSquash squash, NfsTransport transport) {
        VolumeBackend backend = backend(backendName);
        return fence.run(id, token, Intent.CHANGE, done -> {
            BackendVolume volume = existingVolume(backend, backendName, id);
            if (!volume.isFilesystem()) {
                throw new InvalidValueException("export.protocol", "volume " + id + " on backend " + backendName
                        + " is a block device: NFS exports only a zfs-dataset backend's volumes");
            }
            exports.read(id, ExportRecord.class).ifPresent(block -> {
                throw new AgentRefusal(AgentErrorReason.AGENT_ERROR_REASON_EXPORT_CONFLICT, "volume " + id + " is already exported as "
                        + block.describe() + "; unexport it before exporting it over NFS");
            });
            Optional<NfsExportRecord> existing = exports.read(id, NfsExportRecord.class);
            NfsExportRecord wanted = new NfsExportRecord(id, backendName, volume.mountPath(), server,
                    existing.map(NfsExportRecord::clients).orElse(Set.of()), existing.map(NfsExportRecord::readOnly).orElse(Set.of()),
                    existing.map(NfsExportRecord::fencing).orElse(Set.of()), squash, transport);
            requireNfsTransport(transport);
            if (existing.isPresent() && !existing.get().equals(wanted)) {
                throw new AgentRefusal(AgentErrorReason.AGENT_ERROR_REASON_EXPORT_CONFLICT, "volume " + id + " is already exported as "
                        + existing.get().describe() + "; unexport it before exporting it as " + wanted.describe());
            }
            exports.write(wanted);
            nfs.apply(wanted);
            return wanted;
        });
    }

    /**
     * Allows one client address on the volume's NFS export with {@code access}: the record first, then nfsd. A
     * client allowed already with the other access has its entry rewritten (its mounts take it at their next request).
     */
    public void allowNfs(Optional<FencingToken> token, VolumeId id, NfsClient client, NfsAccess access) {
        fence.run(id, token, Intent.CHANGE, done -> {
            refuse(id, ExportRecord.class, "client_address", "NVMe-oF: give host_nqn, not a client address");
            NfsExportRecord record = exports.read(id, NfsExportRecord.class).orElseThrow(() -> new AgentRefusal(
                    AgentErrorReason.AGENT_ERROR_REASON_EXPORT_CONFLICT, "volume " + id + " is not exported over NFS; export it first"));
            NfsExportRecord updated = record.withClient(client, access);
            if (!updated.equals(record)) {
                exports.write(updated);
            }
            nfs.allow(updated, client, false);
            return null;
        });
    }

    /**
     * Removes one client address from the volume's NFS export, the record first: once this returns, the
     * client's mounts fail (ESTALE, docs/nfs.md fact 2). Not exported, or not allowed: success. The record notes
     * the client as fencing until its NFSv4 state is released; a deny of a client still noted retries that.
     */
    public void denyNfs(Optional<FencingToken> token, VolumeId id, NfsClient client) {
        fence.revoke(id, token, done -> {
            refuse(id, ExportRecord.class, "client_address", "NVMe-oF: give host_nqn, not a client address");
            Optional<NfsExportRecord> record = exports.read(id, NfsExportRecord.class);
            if (record.isEmpty()) {
                return null;
            }
            // noted before exportfs -u, so a death before the release is followed by a retry (docs/nfs.md fact 14)
            NfsExportRecord noted = record.get().clients().contains(client) ? record.get().withFencing(client) : record.get();
            if (!noted.equals(record.get())) {
                exports.write(noted);
            }
            if (nfs.deny(record.get(), client) == StateRelease.DONE && noted.fencing().contains(client)) {
                exports.write(noted.withoutFencing(client));
            }
            return null;
        });
    }

    /**
     * Brings one volume's NFS export to exactly {@code server} and {@code clients} on its dataset's mount
     * path (an export from another server or path is removed and made again; clients not wanted lose
     * access at once). A client the record holds keeps its recorded access (read-only stays read-only: a
     * revocation never widens a grant); a client it adds is read-write. Every entry gets {@code squash}, a changed one
     * rewritten in place. Returns what was changed, in words.
     */
    public List<String> reconcileNfs(Optional<FencingToken> token, VolumeId id, String backendName, NfsClient server,
                                     Set<NfsClient> clients, NfsSquash squash, NfsTransport transport) {
        VolumeBackend backend = backend(backendName);
        return fence.run(id, token, Intent.CHANGE, done -> {
            List<String> changes = new java.util.ArrayList<>();
            BackendVolume volume = existingVolume(backend, backendName, id);
            if (!volume.isFilesystem()) {
                throw new InvalidValueException("desired.export.protocol", "volume " + id + " on backend " + backendName
                        + " is a block device: NFS exports only a zfs-dataset backend's volumes");
            }
            Optional<NfsExportRecord> existing = exports.read(id, NfsExportRecord.class);
            Set<NfsClient> readOnly = existing.map(NfsExportRecord::readOnly).orElse(Set.of()).stream()
                    .filter(clients::contains).collect(java.util.stream.Collectors.toSet());
            // a release still pending stays noted (retried at the next deny or start-up), unless allowed again
            Set<NfsClient> fencing = existing.map(NfsExportRecord::fencing).orElse(Set.of()).stream()
                    .filter(c -> !clients.contains(c)).collect(java.util.stream.Collectors.toSet());
            requireNfsTransport(transport);
            NfsExportRecord wanted = new NfsExportRecord(id, backendName, volume.mountPath(), server, clients, readOnly, fencing, squash,
                    transport);
            if (existing.isPresent() && !(existing.get().path().equals(wanted.path()) && existing.get().server().equals(server)
                    && existing.get().backend().equals(backendName))) {
                unexportLocked(id);
                changes.add("unexported NFS " + existing.get().path() + " from " + existing.get().server());
                existing = Optional.empty();
            }
            exports.write(wanted);
            nfs.apply(wanted);
            if (existing.isEmpty()) {
                changes.add("exported NFS " + wanted.path() + " from " + server);
            } else {
                if (existing.get().squash() != squash) {
                    changes.add("NFS " + wanted.path() + " now " + squash.option() + ", was " + existing.get().squash().option());
                }
                if (existing.get().transport() != transport) {
                    changes.add("NFS " + wanted.path() + " now admits " + transport + ", was " + existing.get().transport());
                }
            }
            Set<NfsClient> before = existing.map(NfsExportRecord::clients).orElse(Set.of());
            before.stream().filter(c -> !clients.contains(c)).sorted(java.util.Comparator.comparing(NfsClient::text))
                    .forEach(c -> changes.add("denied " + c));
            clients.stream().filter(c -> !before.contains(c)).sorted(java.util.Comparator.comparing(NfsClient::text))
                    .forEach(c -> changes.add("allowed " + c));
            return changes;
        });
    }

    /**
     * A call for one protocol's clients on a volume exported with {@code other} protocol's record: INVALID_ARGUMENT
     * naming {@code field}, nothing changed; {@code what} names the protocol and the field to give instead.
     */
    private void refuse(VolumeId id, Class<? extends VolumeExport> other, String field, String what) {
        if (exports.read(id, other).isPresent()) {
            throw new InvalidValueException(field, "volume " + id + " is exported over " + what);
        }
    }

    /** A desired export, for {@link #reconcile}. */
    public record Desired(String backend, PortAddress address, boolean aclEnabled, Set<Nqn> allowedHosts,
                          boolean authRequired) {
        /** Without in-band authentication. */
        public Desired(String backend, PortAddress address, boolean aclEnabled, Set<Nqn> allowedHosts) {
            this(backend, address, aclEnabled, allowedHosts, false);
        }
    }

    /**
     * At start-up, before any call is admitted: each protocol's records re-applied and its unrecorded exports of
     * this installation removed, protocol by protocol (NVMe-oF, then NFS). Returns the failures, one line each.
     */
    public List<String> reapplyExports() {
        return protocols.reapply(exports, backends);
    }

    /** Every export record, protocol by protocol (NVMe-oF, then NFS), each in volume order; a damaged one left out. */
    public List<VolumeExport> listExports() {
        return protocols.list(exports);
    }

    /** The volume's durable export record, whatever its protocol; empty when it is not exported. Reads only. */
    public Optional<VolumeExport> exportRecord(VolumeId id) {
        return exports.read(id);
    }

    /** The protocol that applies the record. */
    public ProtocolExporter<?, ?> protocolOf(VolumeExport record) {
        return protocols.of(record);
    }

    /** The differences between a durable export and the kernel (nvmet's configfs, nfsd's table), in words. */
    public List<String> drift(VolumeExport record) {
        return protocols.drift(record);
    }

    private static BackendVolume existingVolume(VolumeBackend backend, String backendName, VolumeId id) {
        return backend.find(id).orElseThrow(() -> new BackendException(
                BackendException.Kind.NOT_FOUND, "volume " + id + " does not exist on backend " + backendName));
    }

    private ExportRecord exported(VolumeId id) {
        return exports.read(id, ExportRecord.class).orElseThrow(() -> new AgentRefusal(
                AgentErrorReason.AGENT_ERROR_REASON_EXPORT_CONFLICT, "volume " + id + " is not exported; export it first"));
    }

    /** Must hold the volume's lock. Record first, kernel second (see the class comment). */
    private void unexportLocked(VolumeId id) {
        // an NVMe-oF subsystem is named after the volume: removed also when its record is damaged or gone
        Optional<NfsExportRecord> shared = exports.read(id, NfsExportRecord.class);
        exports.delete(id);
        shared.ifPresentOrElse(nfs::remove, () -> exporter.remove(ExportRecord.subsystemNqn(id)));
    }

    private static String printable(String value) {
        return value.chars().allMatch(c -> c > 0x20 && c < 0x7f) && value.length() <= 64 ? value : "<invalid>";
    }
}
