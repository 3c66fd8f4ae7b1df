package pillar.agent.export;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import pillar.agent.configfs.FakeConfigfsTree;
import pillar.agent.configfs.PortAddress;
import pillar.agent.nfs.FakeNfsServer;
import pillar.agent.nfs.NfsClient;
import pillar.agent.nfs.NfsFsid;
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

    /**
     * As an adoption asks: an nvmet namespace on the device counts whoever made it (a subsystem outside pillar-csi's
     * names, disabled, its device_path another path of the same file), an NFS export of the directory or below it too.
     */
    @Test
    void whatTheKernelExportsIsAnyonesNamespaceOnTheDeviceAndAnyExportOfTheDirectory() throws IOException {
        Path zd0 = Files.createFile(state.resolve("zd0"));
        Path link = Files.createSymbolicLink(state.resolve("pvc-z"), zd0);
        configfs.mkdir(configfs.nvmet("subsystems/testnqn"));
        configfs.mkdir(configfs.nvmet("subsystems/testnqn/namespaces/7"));
        configfs.write(configfs.nvmet("subsystems/testnqn/namespaces/7/device_path"), zd0 + "\n");
        server.export(server.directory(Path.of("/tank/nfs/pvc-a/www")), CLIENT, NfsFsid.of(VolumeId.of("pvc-a")));

        assertThat(exporters.device(link)).hasValueSatisfying(what -> assertThat(what)
                .contains("nvmet subsystem testnqn has it as namespace 7 (disabled, device_path " + zd0 + ")"));
        assertThat(exporters.device(Files.createFile(state.resolve("zd16")))).isEmpty();
        assertThat(exporters.directory(Path.of("/tank/nfs/pvc-a"))).contains("nfsd exports /tank/nfs/pvc-a/www, below it");
        assertThat(exporters.directory(Path.of("/tank/nfs/pvc-a/www"))).contains("nfsd exports /tank/nfs/pvc-a/www");
        assertThat(exporters.directory(Path.of("/tank/nfs/pvc"))).isEmpty();
        assertThat(exporters.directory(zd0)).isEmpty();
    }

    @Test
    void aListingHoldsEveryProtocolsRecordsNvmeofFirst() {
        ExportStore store = new ExportStore(state);
        store.write(shared);
        store.write(block);

        assertThat(exporters.list(store)).containsExactly(block, shared);
    }
}
