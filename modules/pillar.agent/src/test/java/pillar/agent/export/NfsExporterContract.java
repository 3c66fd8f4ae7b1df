package pillar.agent.export;

import java.nio.file.Path;
import java.util.Set;

import pillar.agent.backend.BackendVolume;
import pillar.agent.nfs.NfsAccess;
import pillar.agent.nfs.NfsClient;
import pillar.agent.nfs.NfsServer;
import pillar.api.value.ByteSize;

/**
 * {@link ProtocolExporterContract} for NFS: {@link NfsExporter} on an {@link NfsServer}, each volume a directory
 * of its own, a client added read-write and a denied one noted as fencing, as the agent writes its records. A
 * change behind its back is a client's entry removed on the server directly ({@code exportfs -u}); start-up
 * prunes the unrecorded exports of the backend's datasets.
 */
public abstract class NfsExporterContract extends ProtocolExporterContract<NfsExportRecord, NfsClient> {
    private static final NfsClient SERVER = NfsClient.parse("server", "10.77.0.1");

    /** The server the exporter drives. */
    protected abstract NfsServer server();

    /** The exportable directory of volume {@code n} (0 or 1). */
    protected abstract Path directory(int n);

    @Override
    protected final NfsExporter newExporter() {
        return new NfsExporter(server(), Set.of(BACKEND));
    }

    @Override
    protected final NfsExportRecord record(int n, Set<NfsClient> clients) {
        return new NfsExportRecord(volumeId(n), BACKEND, directory(n), SERVER, clients);
    }

    @Override
    protected final BackendVolume volume(int n) {
        return BackendVolume.filesystem(volumeId(n), ByteSize.ofMiB(16), directory(n));
    }

    @Override
    protected final NfsClient client(int n) {
        return NfsClient.parse("client", "10.77." + (n + 1) + ".2");
    }

    @Override
    protected final NfsExportRecord allowing(NfsExportRecord record, NfsClient client) {
        return record.withClient(client, NfsAccess.READ_WRITE);
    }

    @Override
    protected final NfsExportRecord denying(NfsExportRecord record, NfsClient client) {
        return record.clients().contains(client) ? record.withFencing(client) : record;
    }

    @Override
    protected final void removeBehindItsBack(NfsExportRecord record, NfsClient client) {
        server().unexport(record.path(), client);
    }
}
