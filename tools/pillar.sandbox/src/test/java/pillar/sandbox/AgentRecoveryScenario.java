package pillar.sandbox;

import static org.assertj.core.api.Assertions.assertThat;
import static pillar.sandbox.Volumes.MIB;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import pillar.api.csi.v1.Volume;
import pillar.api.csi.v1.VolumeCapability;
import pillar.runtime.exec.Command;
import pillar.runtime.exec.SystemProcessRunner;

/**
 * The storage node's crash in the middle of a volume's life: the agent killed (SIGKILL) and the
 * kernel's target configuration wiped, as a reboot leaves it. First while a pod has the volume
 * mounted (the worker's controller loses its connection and keeps reconnecting; the restarted agent
 * re-applies the export and the mount carries on), then while it is detached, with the nvmet modules
 * unloaded and loaded again. Each time the data reads back with the checksum it was written with.
 */
final class AgentRecoveryScenario {
    private static final Path SUBSYSTEMS = Path.of("/sys/kernel/config/nvmet/subsystems");
    private static final Duration PATIENCE = Duration.ofMinutes(5);

    private final SuiteBed suite;
    private final CsiController controller;
    private final KubeletNode node;

    AgentRecoveryScenario(SuiteBed suite) {
        this.suite = suite;
        this.controller = suite.bed.controller();
        this.node = suite.bed.node();
    }

    void run(Backend backend, VolumeMode mode) throws Exception {
        KernelObjects before = suite.snapshot();
        VolumeCapability capability = Capabilities.readWriteOnce(mode, mode.fsType());
        Volume volume = controller.create(Volumes.pvName(), 320 * MIB, capability, Lifecycle.provisionerParameters(
                suite.parameters(backend, mode.fsType()), "pvc-recovery"));
        Attached attached = Attached.attach(controller, node, volume, capability, false);
        String nqn = attached.nqn();
        String first = VolumeData.write(attached.target(), false, 3);

        // 1. mounted: the agent dies and the target forgets everything; the pod's mount waits, then carries on
        crash("while mounted");
        assertThat(controllerStates(nqn)).as("the worker's controller is still there, reconnecting").hasSize(1);
        restartAgent();
        awaitExported(nqn, node.nodeId());
        awaitLive(nqn);
        Lifecycle.dropCaches();
        assertThat(VolumeData.read(attached.target(), false)).as("the data after the crash").isEqualTo(first);
        Files.writeString(attached.target().resolve("after-crash"), "written after the first crash");

        // 2. detached: the agent dies, the target is wiped and nvmet itself is unloaded and loaded again
        node.unpublish(volume.getVolumeId(), attached.target());
        node.unstage(volume.getVolumeId(), attached.staging());
        crash("while detached");
        run("modprobe", "-r", "nvmet_tcp", "nvmet");
        run("modprobe", "nvmet_tcp");
        assertThat(KernelCleanup.list(SUBSYSTEMS)).as("a fresh nvmet").isEmpty();
        restartAgent();
        awaitExported(nqn, node.nodeId());
        Attached again = Attached.attach(controller, node, volume, capability, false);
        Lifecycle.dropCaches();
        assertThat(VolumeData.read(again.target(), false)).as("the data after the second crash").isEqualTo(first);
        assertThat(Files.readString(again.target().resolve("after-crash"))).isEqualTo("written after the first crash");

        again.detach(controller);
        controller.delete(volume.getVolumeId());
        assertThat(suite.snapshot().changesSince(before)).as("left behind").isEmpty();
    }

    private void crash(String when) throws InterruptedException {
        suite.bed.workload("agent").kill();
        List<String> wiped = KernelCleanup.wipeTarget();
        System.out.println("[suite] agent killed " + when + "; target wiped: " + wiped);
        assertThat(KernelCleanup.list(SUBSYSTEMS)).isEmpty();
    }

    private void restartAgent() throws InterruptedException {
        WorkloadProcess agent = suite.bed.workload("agent");
        agent.restart();
        Startup.await(List.of(agent), PATIENCE, System.out);
    }

    /** Until the restarted agent has re-applied the export, with the node allowed in. */
    private void awaitExported(String nqn, String host) throws InterruptedException {
        await("the export of " + nqn + " re-applied", () -> Files.isSymbolicLink(SUBSYSTEMS.resolve(nqn)
                .resolve("allowed_hosts").resolve(host)) || Files.exists(SUBSYSTEMS.resolve(nqn).resolve("allowed_hosts")
                .resolve(host)));
    }

    /** Until the worker's controller of that subsystem is live again. */
    private void awaitLive(String nqn) throws InterruptedException {
        await("the controller of " + nqn + " live again", () -> controllerStates(nqn).equals(List.of("live")));
    }

    private static List<String> controllerStates(String nqn) {
        return KernelCleanup.list(Path.of("/sys/class/nvme")).stream()
                .filter(c -> KernelCleanup.read(c.resolve("subsysnqn")).equals(nqn))
                .map(c -> KernelCleanup.read(c.resolve("state"))).toList();
    }

    private interface Check {
        boolean holds() throws IOException;
    }

    private static void await(String what, Check check) throws InterruptedException {
        long deadline = System.nanoTime() + PATIENCE.toNanos();
        long start = System.nanoTime();
        while (true) {
            try {
                if (check.holds()) {
                    System.out.printf("[suite] %s after %.1f s%n", what, (System.nanoTime() - start) / 1e9);
                    return;
                }
            } catch (IOException notYet) {
                // the configfs tree is being rebuilt
            }
            assertThat(System.nanoTime()).as(what + " within " + PATIENCE.toMinutes() + " minutes").isLessThan(deadline);
            Thread.sleep(500);
        }
    }

    private static void run(String... argv) {
        new SystemProcessRunner().run(Command.of(Duration.ofMinutes(2), argv));
    }
}
