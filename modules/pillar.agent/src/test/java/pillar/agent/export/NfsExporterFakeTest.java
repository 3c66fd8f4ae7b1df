package pillar.agent.export;

import java.nio.file.Path;

import pillar.agent.nfs.FakeNfsServer;
import pillar.agent.nfs.NfsServer;

/** {@link NfsExporterContract} on {@link FakeNfsServer}, two datasets' mount paths declared. */
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
}
