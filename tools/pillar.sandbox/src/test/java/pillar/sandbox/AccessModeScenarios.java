package pillar.sandbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static pillar.sandbox.Volumes.MIB;
import static pillar.sandbox.Volumes.assertCode;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import io.grpc.Status;
import pillar.api.csi.v1.Volume;
import pillar.api.csi.v1.VolumeCapability;

/**
 * Access modes across two node identities on one kernel (node A is the bed's node, node B the second
 * one, each with its own host NQN): ReadWriteOnce is exclusive to one node until it is unpublished,
 * at the controller (FAILED_PRECONDITION) and at the target (the second host is not allowed in);
 * ReadOnlyMany is published to both at once, both read the same data and neither can write.
 */
final class AccessModeScenarios {
    private final SuiteBed suite;
    private final CsiController controller;
    private final KubeletNode a;
    private final KubeletNode b;

    AccessModeScenarios(SuiteBed suite) {
        this.suite = suite;
        this.controller = suite.bed.controller();
        this.a = suite.bed.node();
        this.b = suite.nodeB;
    }

    void readWriteOnceIsExclusiveUntilUnpublished() throws Exception {
        assertThat(a.nodeId()).as("two node identities").isNotEqualTo(b.nodeId()).startsWith("nqn.");
        KernelObjects before = suite.snapshot();
        VolumeCapability rwo = Capabilities.readWriteOnce(VolumeMode.EXT4, "ext4");
        Volume volume = controller.create(Volumes.pvName(), 320 * MIB, rwo, Lifecycle.provisionerParameters(
                suite.parameters(Backend.LVM_THIN, "ext4"), "pvc-rwo"));
        String id = volume.getVolumeId();

        Attached onA = Attached.attach(controller, a, volume, rwo, false);
        assertThat(controller.publish(volume, a.nodeId(), rwo, false)).as("publishing again to the same node")
                .isEqualTo(onA.publishContext());
        assertCode(Status.Code.FAILED_PRECONDITION, () -> controller.publish(volume, b.nodeId(), rwo, false));
        assertThat(suite.snapshot().keysStartingWith("nvmet subsystem " + onA.nqn() + " allowed host "))
                .as("the target lets in node A only").containsExactly("nvmet subsystem " + onA.nqn() + " allowed host " + a.nodeId());
        // node B, trying anyway with A's publish context, is turned away by the target's ACL
        Path stagingB = b.stagingPath(id, id, false);
        assertThatThrownBy(() -> b.stage(volume, onA.publishContext(), stagingB, rwo)).as("NodeStage on node B")
                .isInstanceOf(io.grpc.StatusRuntimeException.class);
        assertThat(suite.snapshot().objects()).as("no controller of node B's host")
                .noneSatisfy((key, value) -> assertThat(value).contains("host " + b.nodeId()));

        String checksum = VolumeData.write(onA.target(), false, 1);
        onA.detach(controller);

        Attached onB = Attached.attach(controller, b, volume, rwo, false);
        Lifecycle.dropCaches();
        assertThat(VolumeData.read(onB.target(), false)).as("node B reads what node A wrote").isEqualTo(checksum);
        assertCode(Status.Code.FAILED_PRECONDITION, () -> controller.publish(volume, a.nodeId(), rwo, false));
        onB.detach(controller);
        b.unstage(id, stagingB); // the refused attempt's staging directory: nothing is staged there
        controller.delete(id);
        assertThat(suite.snapshot().changesSince(before)).as("left behind").isEmpty();
    }

    void readOnlyManyIsReadByTwoNodesAndWrittenByNone() throws Exception {
        KernelObjects before = suite.snapshot();
        VolumeCapability rwo = Capabilities.readWriteOnce(VolumeMode.EXT4, "ext4");
        VolumeCapability rox = Capabilities.readOnlyMany(VolumeMode.EXT4, "ext4");
        Volume volume = controller.createWithCapabilities(Volumes.pvName(), 320 * MIB, List.of(rwo, rox),
                Lifecycle.provisionerParameters(suite.parameters(Backend.LVM_THIN, "ext4"), "pvc-rox"));

        // the data a ReadOnlyMany claim is made for, written once through a ReadWriteOnce attachment
        Attached writer = Attached.attach(controller, a, volume, rwo, false);
        String checksum = VolumeData.write(writer.target(), false, 2);
        writer.detach(controller);

        Attached onA = Attached.attach(controller, a, volume, rox, true);
        Attached onB = Attached.attach(controller, b, volume, rox, true);
        KernelObjects both = suite.snapshot();
        assertThat(both.keysStartingWith("nvmet subsystem " + onA.nqn() + " allowed host ")).as("both hosts allowed")
                .hasSize(2);
        assertThat(both.objects()).as("a controller of each host").anySatisfy((k, v) -> assertThat(v).contains("host " + a.nodeId()))
                .anySatisfy((k, v) -> assertThat(v).contains("host " + b.nodeId()));
        assertThat(both.keysStartingWith("mount " + onA.target())).as("A's mount").hasSize(1);
        assertThat(both.objects().get("mount " + onB.target())).as("B's mount, read-only").endsWith(" ro");
        Lifecycle.dropCaches();
        assertThat(VolumeData.read(onA.target(), false)).as("node A reads the data").isEqualTo(checksum);
        assertThat(VolumeData.read(onB.target(), false)).as("node B reads the data").isEqualTo(checksum);
        for (Path target : List.of(onA.target(), onB.target())) {
            assertThatThrownBy(() -> Files.writeString(target.resolve("refused"), "a write"))
                    .as("a write through " + target).isInstanceOf(IOException.class).hasMessageContaining("Read-only");
        }
        // a writer cannot join while readers hold it
        assertCode(Status.Code.FAILED_PRECONDITION, () -> controller.publish(volume, "nqn.2014-08.org.nvmexpress:uuid:"
                + "00000000-0000-4000-8000-000000000001", rwo, false));

        onB.detach(controller);
        onA.detach(controller);
        controller.delete(volume.getVolumeId());
        assertThat(suite.snapshot().changesSince(before)).as("left behind").isEmpty();
    }
}
