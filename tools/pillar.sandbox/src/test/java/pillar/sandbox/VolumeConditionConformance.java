package pillar.sandbox;

import static org.assertj.core.api.Assertions.assertThat;
import static pillar.sandbox.Volumes.MIB;
import static pillar.sandbox.Volumes.assertCode;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import io.grpc.Status.Code;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.function.Executable;
import pillar.api.csi.v1.ControllerGetVolumeRequest;
import pillar.api.csi.v1.ControllerGetVolumeResponse;
import pillar.api.csi.v1.Volume;
import pillar.api.csi.v1.VolumeCapability;
import pillar.api.csi.v1.VolumeCondition;
import pillar.runtime.exec.Command;
import pillar.runtime.exec.SystemProcessRunner;

/**
 * ControllerGetVolume and its VolumeCondition against the running controller and agent on the real
 * kernel: a fresh LVM thin volume as CreateVolume returned it with a normal condition; its nvmet
 * subsystem wiped under the agent (as a reboot or an operator's rmdir leaves the target) reads
 * abnormal naming the missing subsystem; its LV then removed with lvremove reads abnormal naming the
 * LV; DeleteVolume still cleans up and the kernel is as before. The upstream cases mirrored are
 * csi-sanity's ControllerGetVolume ones (kubernetes-csi/csi-test pkg/sanity/controller.go): "should
 * fail when no volume id is provided", "should fail when the volume is missing", "should return
 * appropriate values (no optional values added)". The repair of a wiped export (the agent's restart
 * re-applies it) is AgentRecoveryScenario's, the controller's (its store poll re-applies a drift the
 * next poll still finds, so the condition is read before that) the NFS scenario's; the fast tier shows
 * the condition normal again after it.
 */
final class VolumeConditionConformance {
    private final SuiteBed suite;
    private final CsiController controller;
    private final VolumeCapability rwo = Capabilities.readWriteOnce(VolumeMode.EXT4, "ext4");
    private final List<DynamicTest> checks = new ArrayList<>();
    private KernelObjects before;
    private Volume volume;

    VolumeConditionConformance(SuiteBed suite) {
        this.suite = suite;
        this.controller = suite.bed.controller();
    }

    List<DynamicTest> checks() {
        check("ControllerGetVolume without a volume ID: INVALID_ARGUMENT; of an unknown one: NOT_FOUND", () -> {
            assertCode(Code.INVALID_ARGUMENT, () -> controller.stub().controllerGetVolume(ControllerGetVolumeRequest.getDefaultInstance()));
            assertCode(Code.NOT_FOUND, () -> get("pvc-" + UUID.randomUUID()));
        });
        check("ControllerGetVolume of a new volume: as CreateVolume returned it, published nowhere, condition normal", () -> {
            before = suite.snapshot();
            String name = Volumes.pvName();
            volume = controller.create(name, 320 * MIB, rwo, Lifecycle.provisionerParameters(
                    suite.parameters(Backend.LVM_THIN, "ext4"), "pvc-condition"));
            ControllerGetVolumeResponse got = get(volume.getVolumeId());
            assertThat(got.getVolume()).isEqualTo(volume);
            assertThat(got.getStatus().getPublishedNodeIdsList()).isEmpty();
            assertThat(got.getStatus().getVolumeCondition()).isEqualTo(VolumeCondition.newBuilder().setAbnormal(false).build());
        });
        check("its nvmet subsystem wiped under the agent: abnormal, naming the missing subsystem", () -> {
            String nqn = nqn();
            KernelCleanup.wipeSubsystem(nqn);
            assertThat(Path.of("/sys/kernel/config/nvmet/subsystems", nqn)).doesNotExist();
            VolumeCondition condition = condition();
            System.out.println("[suite] condition with the export wiped: " + condition.getMessage());
            assertThat(condition.getAbnormal()).isTrue();
            assertThat(condition.getMessage()).contains("volume " + volume.getVolumeId() + " on PillarStore",
                    "subsystem " + nqn + " missing", "restart pillar-agent");
        });
        check("its LV then removed with lvremove: abnormal, naming the LV that is gone", () -> {
            String lv = StoragePools.VG + "/" + volume.getVolumeId();
            new SystemProcessRunner().run(Command.of(Duration.ofMinutes(1), "lvremove", "-f", lv));
            assertThat(Files.exists(Path.of("/dev", lv))).as("/dev/" + lv).isFalse();
            VolumeCondition condition = condition();
            System.out.println("[suite] condition with the LV gone: " + condition.getMessage());
            assertThat(condition.getAbnormal()).isTrue();
            assertThat(condition.getMessage()).contains("its LV is gone from backend " + Backend.LVM_THIN.agentBackend());
        });
        check("DeleteVolume of the broken volume: gone, NOT_FOUND after, nothing left in the kernel", () -> {
            assertThat(volume).as("the volume of the checks above").isNotNull();
            controller.delete(volume.getVolumeId());
            assertCode(Code.NOT_FOUND, () -> get(volume.getVolumeId()));
            assertThat(suite.snapshot().changesSince(before)).as("left behind").isEmpty();
        });
        return List.copyOf(checks);
    }

    private String nqn() {
        return "nqn.2024-06.io.pillar-csi:" + volume.getVolumeId();
    }

    private VolumeCondition condition() {
        return get(volume.getVolumeId()).getStatus().getVolumeCondition();
    }

    private ControllerGetVolumeResponse get(String id) {
        return controller.stub().controllerGetVolume(ControllerGetVolumeRequest.newBuilder().setVolumeId(id).build());
    }

    private void check(String name, Executable body) {
        checks.add(DynamicTest.dynamicTest(name, body));
    }
}
