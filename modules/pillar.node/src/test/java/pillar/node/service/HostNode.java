package pillar.node.service;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

import pillar.runtime.exec.SystemProcessRunner;
import pillar.node.fs.RecordingRunner;
import pillar.node.mount.HostLoops;
import pillar.node.mount.JnaMounter;

/**
 * The host tier's node: the real mounter on this kernel, the real filesystem tools, and loop devices
 * standing in for the NVMe namespaces (the fake initiator links its /dev nodes to them). Closing it
 * stops the service, unmounts everything below the test's root and detaches the loop devices.
 */
final class HostNode implements AutoCloseable {
    final HostLoops loops;
    final RecordingRunner tools = new RecordingRunner(new SystemProcessRunner());
    final NodeFixture fixture;

    HostNode(Path root) {
        HostLoops.requireHost();
        loops = new HostLoops(root);
        NodeFixture.Backing loopDevices = (volume, bytes) -> {
            Path loop = loops.create(volume, bytes);
            return Map.entry(loop, () -> HostLoops.size(loop));
        };
        NodeFixture made;
        try {
            made = new NodeFixture(root, new JnaMounter(Path.of("/proc/self/mountinfo")), tools, loopDevices,
                    Duration.ofSeconds(10));
        } catch (RuntimeException e) {
            loops.close();
            throw e;
        }
        fixture = made;
    }

    @Override
    public void close() {
        try {
            fixture.close();
        } finally {
            loops.close();
        }
    }
}
