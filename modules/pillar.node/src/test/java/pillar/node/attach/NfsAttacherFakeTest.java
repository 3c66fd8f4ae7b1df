package pillar.node.attach;

import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;

import pillar.node.mount.FakeMounter;
import pillar.node.mount.NfsExport;
import pillar.node.sys.Errno;

/** {@link NfsAttacherContract} on a {@link FakeMounter}, whose server refuses one export (EACCES). */
class NfsAttacherFakeTest extends NfsAttacherContract {
    private static final NfsExport EXPORTED = new NfsExport("10.0.0.5", "/tank/pvc-a", "10.0.0.7");
    private static final NfsExport DENIED = new NfsExport("10.0.0.5", "/tank/pvc-denied", "10.0.0.7");

    @TempDir
    Path root;
    private final FakeMounter mounter = new FakeMounter();
    private Path staging;

    @BeforeEach
    void makeStaging() throws Exception {
        staging = Files.createDirectories(root.resolve("globalmount"));
        mounter.refuseNfs(DENIED.source(), Errno.EACCES);
        runOn(mounter, EXPORTED, DENIED, staging);
    }
}
