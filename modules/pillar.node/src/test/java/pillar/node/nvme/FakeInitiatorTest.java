package pillar.node.nvme;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import pillar.api.value.Nqn;
import pillar.node.sys.Hangs;

/**
 * The fake serializes connects as the kernel does (6.1 holds one mutex, nvmf_dev_mutex, across every
 * write to {@code /dev/nvme-fabrics}): while a connect hangs, a connect to another subsystem waits for it.
 */
class FakeInitiatorTest {
    private static final Nqn HOST = Nqn.of("nqn.2014-08.org.nvmexpress:uuid:5e1e47ed-0000-4000-8000-000000000002");

    @TempDir
    Path root;

    @Test
    void aHungConnectHoldsUpEveryOtherConnect() throws Exception {
        FakeInitiator fake = new FakeInitiator(root.resolve("sys"), root.resolve("dev"), HOST);
        Nqn hung = Nqn.of("nqn.2024-01.io.pillar-csi:hung-1");
        Nqn other = Nqn.of("nqn.2024-01.io.pillar-csi:other");
        fake.export(new FakeInitiator.Export(other, "127.0.0.1", 4420, root.resolve("backing"), () -> 1L << 20));
        Hangs.Hang hang = fake.hangConnectsTo(hung);
        ExecutorService threads = Executors.newThreadPerTaskExecutor(Thread.ofPlatform().daemon().factory());
        CompletableFuture<Controller> stuck = CompletableFuture.supplyAsync(() -> fake.connect(target(hung)), threads);
        hang.awaitEntered();
        CompletableFuture<Controller> next = CompletableFuture.supplyAsync(() -> fake.connect(target(other)), threads);
        Thread.sleep(300);
        assertThat(next).as("held up by the hung connect").isNotDone();
        hang.release();
        assertThat(next.get(10, TimeUnit.SECONDS)).isNotNull();
        assertThat(stuck).failsWithin(10, TimeUnit.SECONDS); // hung-1 is not exported: refused once released
    }

    private static FabricsTarget target(Nqn nqn) {
        return new FabricsTarget(nqn, FabricsTarget.TCP, "127.0.0.1", 4420, 5, 1, 0);
    }
}
