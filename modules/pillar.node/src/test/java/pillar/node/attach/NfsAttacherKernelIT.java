package pillar.node.attach;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;

import pillar.node.mount.JnaMounter;
import pillar.node.mount.Mounter;
import pillar.node.mount.NfsExport;
import pillar.testkit.LoopbackNfsd;

/**
 * {@link NfsAttacherContract} on the VM's kernel: its NFS client mounts a directory a {@link LoopbackNfsd}
 * exports to 127.0.0.1 (one server for the class), and what is written through the mount reaches the
 * exported directory; the refused export is a directory the server does not export. Runs only inside
 * the qemu VM ({@code dev/kernel-it}).
 */
class NfsAttacherKernelIT extends NfsAttacherContract {
    private static LoopbackNfsd nfsd;
    private static NfsExport exported;

    @TempDir
    Path work;
    private final Mounter mounter = new JnaMounter(Path.of("/proc/self/mountinfo"));
    private Path staging;

    @BeforeAll
    static void serve(@TempDir Path logs) {
        nfsd = LoopbackNfsd.start(Path.of("/pillar-node-nfs"), logs);
        exported = new NfsExport("127.0.0.1", nfsd.export("attach"), "127.0.0.1");
    }

    @AfterAll
    static void stop() {
        if (nfsd != null) {
            nfsd.close();
        }
    }

    @BeforeEach
    void makeStaging() throws Exception {
        staging = Files.createDirectories(work.resolve("globalmount"));
        runOn(mounter, exported, new NfsExport("127.0.0.1", nfsd.top().resolve("not-exported").toString(),
                "127.0.0.1"), staging);
    }

    @AfterEach
    void unmount() {
        mounter.unmount(staging); // what a failed test left mounted
    }

    @Override
    void assertStageable(Attachment.Mount mount) throws Exception {
        super.assertStageable(mount);
        Files.writeString(staging.resolve("written"), "through nfsd"); // waits out the server's 10 s grace once
        assertThat(Path.of(exported.path()).resolve("written")).hasContent("through nfsd");
    }
}
