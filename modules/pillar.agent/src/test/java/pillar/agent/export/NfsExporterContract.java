package pillar.agent.export;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.junit.jupiter.api.Test;

import pillar.agent.backend.BackendVolume;
import pillar.agent.nfs.NfsAccess;
import pillar.agent.nfs.NfsClient;
import pillar.agent.nfs.NfsExport;
import pillar.agent.nfs.NfsServer;
import pillar.agent.nfs.NfsSquash;
import pillar.api.value.ByteSize;

/**
 * {@link ProtocolExporterContract} for NFS: {@link NfsExporter} on an {@link NfsServer}, each volume a directory
 * of its own, a client added read-write and a denied one noted as fencing, as the agent writes its records. A
 * change behind its back is a client's entry removed on the server directly ({@code exportfs -u}); start-up
 * prunes the unrecorded exports of the backend's datasets. Besides: a record's root squashing reaches every entry, is
 * measured by drift and is restored by start-up's re-apply.
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

    @Test
    void aSquashedRecordExportsEveryClientWithRootSquashAndStartUpRestoresIt() {
        ExportStore store = new ExportStore(stateDir);
        NfsExportRecord squashed = squashed(applied(record(0, Set.of(client(0)))));
        assertThat(newExporter().drift(squashed)).as("a no_root_squash entry measured against a squashed record")
                .containsExactly("client " + client(0) + " has " + squashed.path() + " no_root_squash, not root_squash");
        exporter().apply(squashed);
        store.write(squashed);
        assertThat(squashes(squashed)).containsExactly(NfsSquash.ROOT_SQUASH);
        assertThat(exporter().drift(squashed)).isEmpty();

        server().export(squashed.path(), client(0), squashed.fsid(), NfsAccess.READ_WRITE, NfsSquash.NO_ROOT_SQUASH);
        assertThat(exporter().drift(squashed)).as("squashing undone behind its back").isNotEmpty();
        assertThat(exporter().reapply(store, Map.of(BACKEND, new HeldVolumes(BACKEND, List.of(volume(0)))))).isEmpty();

        assertThat(squashes(squashed)).containsExactly(NfsSquash.ROOT_SQUASH);
        assertThat(exporter().drift(squashed)).isEmpty();
        assertThat(store.read(squashed.volume(), NfsExportRecord.class)).contains(squashed);
    }

    private static NfsExportRecord squashed(NfsExportRecord record) {
        return new NfsExportRecord(record.volume(), record.backend(), record.path(), record.server(), record.clients(),
                record.readOnly(), record.fencing(), NfsSquash.ROOT_SQUASH);
    }

    private List<NfsSquash> squashes(NfsExportRecord record) {
        return server().exports().stream().filter(e -> e.path().equals(record.path())).map(NfsExport::squash).toList();
    }
}
