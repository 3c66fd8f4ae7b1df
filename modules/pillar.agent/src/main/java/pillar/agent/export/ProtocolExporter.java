package pillar.agent.export;

import java.util.List;
import java.util.Map;
import java.util.Set;

import pillar.agent.backend.KernelExports;
import pillar.agent.backend.VolumeBackend;
import pillar.agent.nfs.StateRelease;

/**
 * One export protocol of the agent (NVMe-oF/TCP through nvmet, NFS through nfsd) as the agent drives it: it
 * makes the kernel hold a volume's durable record exactly, admits and fences the record's clients, measures
 * the drift of a record against the kernel and re-applies its own records at start-up, pruning its exports
 * that have none. The record is written before any call that widens access, and a call is idempotent: a
 * retry converges to the record. {@code ProtocolExporterContract} (tests) states this against each protocol.
 * As {@link KernelExports} it says what its kernel server exports now, whoever made the export.
 *
 * @param <R> the protocol's durable record
 * @param <C> the protocol's client (a host NQN, an NFS client address)
 */
public interface ProtocolExporter<R extends VolumeExport, C> extends KernelExports {
    /** The type of this protocol's records: {@link ExportStore} reads and lists them by it. */
    Class<R> records();

    /**
     * Where the exports live, for messages: "the kernel" (nvmet) or "nfsd"; the changes a caller reports
     * say "&lt;where&gt;'s export of &lt;volume&gt;".
     */
    String where();

    /** Makes the kernel hold exactly the record: what it lists is made, what else the volume's export has is removed. */
    void apply(R record);

    /** Removes the volume's export from the kernel: no client of it is admitted afterwards, nothing of it is left. */
    void remove(R record);

    /**
     * Admits {@code client} as the record says (the record lists it, with its access or its keys); with
     * {@code exclusive} the record lists it alone and every other client loses its access.
     */
    void allow(R record, C client, boolean exclusive);

    /**
     * Fences {@code client} off the export: once this returns it has no access, the others keep theirs.
     * {@code before} is the record as it was before the deny; returns whether the client's state held on
     * the export is released ({@link StateRelease#PENDING}: to be retried).
     */
    StateRelease deny(R before, C client);

    /** The differences between the record and what the kernel holds, in words (no secret); empty when in place. */
    List<String> drift(R record);

    /** Whether the kernel holds an export of the record's volume now. */
    boolean exported(R record);

    /** The clients the kernel admits on the record's export now (an export open to any client lists none). */
    Set<C> admitted(R record);

    /**
     * At start-up: applies each of this protocol's records in {@code store} (each on its own, one failing
     * leaves the others) and removes the exports of this installation's volumes that have no record.
     * Returns the failures, one line each.
     */
    List<String> reapply(ExportStore store, Map<String, VolumeBackend> backends);

    /** Whether the protocol authenticates clients in-band; false when it cannot tell now. */
    boolean authSupported();
}
