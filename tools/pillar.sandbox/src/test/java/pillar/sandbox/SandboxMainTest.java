package pillar.sandbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;

import org.junit.jupiter.api.Test;

/** The options of {@code up}: defaults, every value, the command after {@code --}, and clear refusals. */
class SandboxMainTest {
    @Test
    void defaultsAreTheQuickstartsBackendAndExt4() {
        SandboxRun.Options o = SandboxMain.parse(new String[] {"up", "--project", "/p", "--out", "/o"});
        assertThat(o.backend()).isEqualTo(Backend.LVM_THIN);
        assertThat(o.mode()).isEqualTo(VolumeMode.EXT4);
        assertThat(o.keep()).isFalse();
        assertThat(o.scenario()).isEqualTo(SandboxRun.Scenario.LIFECYCLE);
        assertThat(o.protocol()).isEqualTo(SandboxRun.Protocol.NVME_TCP);
        assertThat(o.command()).isEmpty();
    }

    @Test
    void nfsPlaysItsOwnExampleAndRefusesTheBlockOptions() {
        SandboxRun.Options o = SandboxMain.parse(new String[] {"up", "--project", "/p", "--out", "/o", "--protocol", "nfs",
                "--scenario", "lifecycle", "--keep"});
        assertThat(o.protocol()).isEqualTo(SandboxRun.Protocol.NFS);
        assertThat(o.keep()).isTrue();
        assertThatThrownBy(() -> SandboxMain.parse(new String[] {"up", "--project", "/p", "--out", "/o", "--protocol", "nfs",
                "--backend", "zfs", "--scenario", "snapshot"}))
                .hasMessage("--protocol nfs plays examples/sandbox/nfs.yaml (ZFS datasets, nfs4, ReadWriteMany): --backend and"
                        + " --scenario snapshot are for NVMe/TCP only");
        assertThatThrownBy(() -> SandboxMain.parse(new String[] {"up", "--project", "/p", "--out", "/o", "--protocol", "iscsi"}))
                .hasMessage("--protocol must be nvme-tcp or nfs, is 'iscsi'");
    }

    @Test
    void everythingAfterTheDoubleDashIsTheCommandVerbatim() {
        SandboxRun.Options o = SandboxMain.parse(new String[] {"up", "--project", "/p", "--out", "/o", "--backend", "zfs",
                "--fs", "block", "--scenario", "snapshot", "--keep", "--", "csi-sanity", "--ginkgo.focus", "Node Service", "--keep"});
        assertThat(o.backend()).isEqualTo(Backend.ZFS);
        assertThat(o.mode()).isEqualTo(VolumeMode.BLOCK);
        assertThat(o.keep()).isTrue();
        assertThat(o.scenario()).isEqualTo(SandboxRun.Scenario.SNAPSHOT);
        assertThat(o.command()).isEqualTo(List.of("csi-sanity", "--ginkgo.focus", "Node Service", "--keep"));
    }

    @Test
    void badValuesAreRefusedNamingTheValidOnes() {
        assertThatThrownBy(() -> SandboxMain.parse(new String[] {"up", "--project", "/p", "--out", "/o", "--backend", "btrfs"}))
                .hasMessage("--backend must be lvm, lvm-thin or zfs, is 'btrfs'");
        assertThatThrownBy(() -> SandboxMain.parse(new String[] {"up", "--project", "/p", "--out", "/o", "--fs", "vfat"}))
                .hasMessage("--fs must be ext4, xfs or block, is 'vfat'");
        assertThatThrownBy(() -> SandboxMain.parse(new String[] {"up", "--project", "/p", "--out", "/o", "--scenario", "backup"}))
                .hasMessage("--scenario must be lifecycle or snapshot, is 'backup'");
        assertThatThrownBy(() -> SandboxMain.parse(new String[] {"up", "--out", "/o"}))
                .hasMessage("--project and --out are required");
        assertThatThrownBy(() -> SandboxMain.parse(new String[] {"up", "--project"})).hasMessage("--project needs a value");
        assertThatThrownBy(() -> SandboxMain.parse(new String[] {"down"})).hasMessage("unknown command 'down'");
    }
}
