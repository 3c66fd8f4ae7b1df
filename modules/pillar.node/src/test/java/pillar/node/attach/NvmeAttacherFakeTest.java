package pillar.node.attach;

import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;

import pillar.api.value.Nqn;
import pillar.node.nvme.FakeInitiator;
import pillar.node.nvme.SysfsNvme;

/** {@link NvmeAttacherContract} on a {@link FakeInitiator}'s sysfs and /dev. */
class NvmeAttacherFakeTest extends NvmeAttacherContract {
    private static final Nqn HOST = Nqn.of("nqn.2014-08.org.nvmexpress:uuid:11111111-2222-3333-4444-555555555555");
    private static final Nqn EXPORTED = Nqn.of("nqn.2024-01.io.pillar-csi:pvc-a");
    private static final int TRSVCID = 4420;

    @TempDir
    Path root;
    private FakeInitiator initiator;
    private SysfsNvme sysfs;
    private final pillar.testkit.FakeKeyring tlsKeys = new pillar.testkit.FakeKeyring();
    private final SubsystemLocks locks = new SubsystemLocks();

    @BeforeEach
    void exportOne() throws Exception {
        initiator = new FakeInitiator(root.resolve("sys"), root.resolve("dev"), HOST);
        sysfs = new SysfsNvme(root.resolve("sys"), root.resolve("dev"));
        Path backing = Files.createDirectories(root.resolve("backing")).resolve("pvc-a.img");
        try (RandomAccessFile file = new RandomAccessFile(backing.toFile(), "rw")) {
            file.setLength(64L << 20);
        }
        initiator.export(new FakeInitiator.Export(EXPORTED, "127.0.0.1", TRSVCID, backing, () -> 64L << 20));
        runOn(sysfs, EXPORTED, TRSVCID);
    }

    @Override
    Attacher<NvmeTarget, Attachment.Device> newAttacher() {
        return new NvmeAttacher(initiator, sysfs, HOST, Duration.ofSeconds(5), locks, () -> tlsKeys);
    }
}
