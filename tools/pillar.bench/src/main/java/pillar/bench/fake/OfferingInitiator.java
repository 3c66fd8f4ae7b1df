package pillar.bench.fake;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

import pillar.api.value.Nqn;
import pillar.node.nvme.Controller;
import pillar.node.nvme.FabricsAuth;
import pillar.node.nvme.FabricsTarget;
import pillar.node.nvme.FabricsTls;
import pillar.node.nvme.FakeInitiator;
import pillar.node.nvme.Initiator;

/**
 * The node's fake initiator with a target that offers whatever subsystem the node connects to (the
 * agent of the benchmark lives in another process and already exported it): before the first connect
 * to a subsystem, a sparse file of the volume's size in the fake tree becomes its namespace. The
 * fake then does to its sysfs and /dev tree what the kernel does.
 */
final class OfferingInitiator implements Initiator {
    private final FakeInitiator fake;
    private final Path backings;
    private final long volumeBytes;
    private final ConcurrentMap<Nqn, Boolean> offered = new ConcurrentHashMap<>();

    OfferingInitiator(FakeInitiator fake, Path backings, long volumeBytes) {
        this.fake = fake;
        this.backings = backings;
        this.volumeBytes = volumeBytes;
    }

    /** Offers each subsystem once; connects to different subsystems never wait for each other here. */
    @Override
    public Controller connect(FabricsTarget target, Optional<FabricsAuth> auth, Optional<FabricsTls> tls) {
        offered.computeIfAbsent(target.nqn(), nqn -> {
            Path backing = backings.resolve(nqn.value().replace(':', '_') + ".img");
            try (RandomAccessFile file = new RandomAccessFile(backing.toFile(), "rw")) {
                file.setLength(volumeBytes);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            fake.export(new FakeInitiator.Export(nqn, target.traddr(), target.trsvcid(), backing, () -> volumeBytes));
            return Boolean.TRUE;
        });
        return fake.connect(target, auth, tls);
    }

    @Override
    public boolean tlsSupported() {
        return fake.tlsSupported();
    }

    @Override
    public void disconnect(Controller controller) {
        fake.disconnect(controller);
    }

    @Override
    public void rescan(Controller controller) {
        fake.rescan(controller);
    }
}
