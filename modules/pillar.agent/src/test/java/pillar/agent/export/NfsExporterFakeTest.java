package pillar.agent.export;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.junit.jupiter.api.Test;

import pillar.agent.nfs.FakeNfsServer;
import pillar.agent.nfs.NfsAccess;
import pillar.agent.nfs.NfsExport;
import pillar.agent.nfs.NfsServer;
import pillar.agent.nfs.NfsSquash;
import pillar.agent.nfs.NfsTransport;

/**
 * {@link NfsExporterContract} on {@link FakeNfsServer}, two datasets' mount paths declared; and a record requiring
 * RPC-with-TLS, which the 6.1 kernel of the contract's kernel run cannot serve (NfsTlsKernelIT proves it on 6.12).
 */
class NfsExporterFakeTest extends NfsExporterContract {
    private final FakeNfsServer nfs = new FakeNfsServer();
    private final Path[] directories = {nfs.directory(Path.of("/tank/contract/contract-export-0")),
            nfs.directory(Path.of("/tank/contract/contract-export-1"))};

    @Override
    protected NfsServer server() {
        return nfs;
    }

    @Override
    protected Path directory(int n) {
        return directories[n];
    }

    @Test
    void aTlsRecordExportsEveryClientTlsOnlyAndAnEntryAdmittingPlaintextIsDriftThatStartUpRepairs() {
        ExportStore store = new ExportStore(stateDir);
        NfsExportRecord plain = applied(record(0, Set.of(client(0), client(1))));
        NfsExportRecord tls = new NfsExportRecord(plain.volume(), plain.backend(), plain.path(), plain.server(), plain.clients(),
                plain.readOnly(), plain.fencing(), NfsSquash.NO_ROOT_SQUASH, NfsTransport.TLS);
        assertThat(newExporter().drift(tls)).as("entries admitting any transport measured against a TLS record").containsExactly(
                "client " + client(0) + " has " + tls.path() + " for any transport, not RPC-with-TLS only",
                "client " + client(1) + " has " + tls.path() + " for any transport, not RPC-with-TLS only");
        exporter().apply(tls);
        store.write(tls);
        assertThat(transports(tls)).containsExactly(NfsTransport.TLS, NfsTransport.TLS);
        assertThat(exporter().drift(tls)).isEmpty();

        nfs.export(tls.path(), client(1), tls.fsid(), NfsAccess.READ_WRITE, NfsSquash.NO_ROOT_SQUASH);
        assertThat(exporter().drift(tls)).as("TLS undone behind its back").containsExactly(
                "client " + client(1) + " has " + tls.path() + " for any transport, not RPC-with-TLS only");
        assertThat(exporter().reapply(store, Map.of(BACKEND, new HeldVolumes(BACKEND, List.of(volume(0)))))).isEmpty();

        assertThat(transports(tls)).containsExactly(NfsTransport.TLS, NfsTransport.TLS);
        assertThat(store.read(tls.volume(), NfsExportRecord.class)).contains(tls);
    }

    private List<NfsTransport> transports(NfsExportRecord record) {
        return nfs.exports().stream().filter(e -> e.path().equals(record.path())).map(NfsExport::transport).toList();
    }
}
