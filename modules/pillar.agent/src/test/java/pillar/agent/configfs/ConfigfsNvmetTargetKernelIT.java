package pillar.agent.configfs;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;

import pillar.api.value.Nqn;

/**
 * {@link NvmetTargetContract} on the real kernel (the qemu VM of {@code dev/kernel-it}), with two loop
 * devices behind the namespaces: the behaviour the fake tier proves is the kernel's. Each test removes
 * what it made.
 */
class ConfigfsNvmetTargetKernelIT extends NvmetTargetContract {
    @TempDir
    static Path work;
    private static Path loop;
    private static Path otherLoop;

    /** Reconnect every second, give up after 5 s; duplicate_connect: a host refused, not a duplicate. */
    private static final String HOST_OPTIONS = "reconnect_delay=1,ctrl_loss_tmo=5,duplicate_connect";

    private final ConfigfsTree tree = new KernelConfigfsTree();
    private final FabricsInitiator initiator = new FabricsInitiator(Path.of("/dev"), Path.of("/sys"));
    private final List<String> connected = new ArrayList<>();
    private final ConfigfsNvmetTarget target = new ConfigfsNvmetTarget(KernelBed.CONFIGFS);

    @BeforeAll
    static void bed() throws IOException {
        KernelBed.requireVm();
        loop = KernelBed.loopDevice(work, "target-contract-a", 16L << 20);
        otherLoop = KernelBed.loopDevice(work, "target-contract-b", 16L << 20);
    }

    @AfterEach
    void removeWhatTheTestMade() throws IOException, InterruptedException {
        for (String controller : connected) {
            initiator.disconnect(controller, Duration.ofSeconds(10));
        }
        KernelBed.wipe(tree);
    }

    @Override
    String connect(PortAddress address, Nqn subsystem, Nqn host) throws IOException {
        String name = initiator.connect(address, subsystem, host, HOST_OPTIONS).name();
        connected.add(name);
        return name;
    }

    @Override
    Optional<Seen> look(String controller) {
        return initiator.stateOf(controller).map(s -> new Seen(s[0], Integer.parseInt(s[1])));
    }

    @AfterAll
    static void detach() {
        KernelBed.detach(loop);
        KernelBed.detach(otherLoop);
    }

    @Override
    ConfigfsNvmetTarget target() {
        return target;
    }

    @Override
    boolean kernelHasAuth() {
        return KernelBed.hasNvmetAuth();
    }

    @Override
    ConfigfsTree tree() {
        return tree;
    }

    @Override
    Path configfs() {
        return KernelBed.CONFIGFS;
    }

    @Override
    Path device() {
        return loop;
    }

    @Override
    Path otherDevice() {
        return otherLoop;
    }
}
