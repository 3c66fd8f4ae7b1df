package pillar.agent.export;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import java.util.Set;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import pillar.agent.configfs.FakeConfigfsTree;
import pillar.agent.configfs.PortAddress;
import pillar.agent.nfs.FakeNfsServer;
import pillar.agent.nfs.NfsClient;
import pillar.api.value.Nqn;
import pillar.api.value.VolumeId;

/** A record goes to its own protocol; a listing runs protocol by protocol, NVMe-oF's records first. */
class ExportersTest {
    private static final Path DEVICE = Path.of("/dev/vg0/pvc-b");
    private static final NfsClient CLIENT = NfsClient.parse("client", "10.77.1.2");

    @TempDir
    Path state;

    private final FakeConfigfsTree configfs = FakeConfigfsTree.create().addBlockDevice(DEVICE);
    private final FakeNfsServer server = new FakeNfsServer();
    private final Exporter nvme = new Exporter(configfs.target());
    private final NfsExporter nfs = new NfsExporter(server);
    private final Exporters exporters = new Exporters(List.of(nvme, nfs));

    private final ExportRecord block = new ExportRecord(VolumeId.of("pvc-b"), "fast", DEVICE, PortAddress.tcp("127.0.0.1", 4420),
            true, Set.of(Nqn.of("nqn.2014-08.org.nvmexpress:uuid:host-1")));
    private final NfsExportRecord shared = new NfsExportRecord(VolumeId.of("pvc-a"), "shared",
            server.directory(Path.of("/tank/nfs/pvc-a")), NfsClient.parse("server", "10.0.0.5"), Set.of(CLIENT));

    @Test
    void eachRecordGoesToItsProtocol() {
        nvme.apply(block);
        nfs.apply(shared);

        assertThat(exporters.of(block)).isSameAs(nvme);
        assertThat(exporters.of(shared)).isSameAs(nfs);
        assertThat(exporters.drift(block)).isEmpty();
        assertThat(exporters.drift(shared)).isEmpty();

        exporters.remove(shared);
        assertThat(nfs.exported(shared)).isFalse();
        assertThat(nvme.exported(block)).isTrue();
        exporters.remove(block);
        assertThat(nvme.exported(block)).isFalse();
    }

    @Test
    void aListingHoldsEveryProtocolsRecordsNvmeofFirst() {
        ExportStore store = new ExportStore(state);
        store.write(shared);
        store.write(block);

        assertThat(exporters.list(store)).containsExactly(block, shared);
    }
}
