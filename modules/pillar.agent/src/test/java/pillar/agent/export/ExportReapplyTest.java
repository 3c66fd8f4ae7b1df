package pillar.agent.export;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import pillar.agent.backend.BackendVolume;
import pillar.agent.backend.zfs.FakeZfs;
import pillar.agent.backend.VolumeBackend;
import pillar.agent.backend.zfs.ZfsVolumeBackend;
import pillar.agent.config.BackendConfig;
import pillar.agent.configfs.FakeConfigfsTree;
import pillar.agent.configfs.NvmetTarget;
import pillar.agent.configfs.PortAddress;
import pillar.agent.configfs.PortId;
import pillar.api.agent.v1.BackendKind;
import pillar.runtime.exec.CommandFailedException;
import pillar.runtime.exec.ProcessRunner;
import pillar.api.value.ByteSize;
import pillar.api.value.Nqn;
import pillar.api.value.VolumeId;

/**
 * Start-up re-application on the fake kernel tree, with zvols on the stateful zfs fake without udev
 * (device numbers that are not stable): re-applying converges to each record exactly (hosts, ports and
 * namespaces the record does not list are removed), follows a zvol whose {@code /dev/zdN} changed, and
 * reports a record it cannot apply without touching the others.
 */
class ExportReapplyTest {
    private static final Nqn HOST = Nqn.of("nqn.2014-08.org.nvmexpress:uuid:reapply-host-1");
    private static final Nqn HOST2 = Nqn.of("nqn.2014-08.org.nvmexpress:uuid:reapply-host-2");
    private static final PortAddress ADDRESS = PortAddress.tcp("127.0.0.1", 4420);
    private static final PortAddress OTHER = PortAddress.tcp("127.0.0.1", 4421);
    private static final String ZVOL_ID = "/lib/udev/zvol_id";

    @TempDir
    Path dir;

    private final FakeConfigfsTree configfs = FakeConfigfsTree.create();
    private final NvmetTarget target = configfs.target();
    private final Exporter exporter = new Exporter(target);
    private ExportStore store;
    private FakeZfs zfs;
    private Map<String, VolumeBackend> backends;

    @BeforeEach
    void zfsWithoutUdev() {
        store = new ExportStore(dir.resolve("state"));
        zfs = new FakeZfs("tank", ByteSize.ofGiB(4).bytes(), dir.resolve("dev"), dir.resolve("sys"), ZVOL_ID,
                FakeZfs.Devices.NO_UDEV).withFilesystem("tank/k8s");
        backends = Map.of("zfs", new ZfsVolumeBackend(new BackendConfig("zfs", BackendKind.BACKEND_KIND_ZFS_ZVOL, "tank", "k8s"),
                zfs, dir.resolve("dev"), dir.resolve("sys"), Path.of(ZVOL_ID), Duration.ofSeconds(5), Duration.ofSeconds(5)));
    }

    private BackendVolume zvol(String id) {
        BackendVolume volume = backends.get("zfs").create(VolumeId.of(id), ByteSize.ofMiB(64), Map.of("sparse", "true"));
        configfs.addBlockDevice(volume.device());
        return volume;
    }

    private ExportRecord record(BackendVolume volume, Path device, Nqn... hosts) {
        return new ExportRecord(volume.id(), "zfs", device, ADDRESS, hosts.length > 0, Set.of(hosts));
    }

    @Test
    void reapplyingConvergesToTheRecordExactly() {
        BackendVolume a = zvol("pvc-a");
        ExportRecord record = record(a, a.device(), HOST);
        store.write(record);
        exporter.apply(record);
        // drift someone else made while the agent was down
        Nqn nqn = record.subsystem();
        target.allowHost(nqn, HOST2);
        target.ensurePort(PortId.of(7), OTHER);
        target.linkPort(PortId.of(7), nqn);
        assertThat(exporter.drift(record)).containsExactly("host " + HOST2 + " allowed but not wanted",
                "linked to port 7 at tcp://127.0.0.1:4421 but not wanted");

        assertThat(ExportReapply.run(store, exporter, backends)).isEmpty();
        assertThat(exporter.drift(record)).isEmpty();
        assertThat(configfs.entries("hosts")).containsExactly(HOST.value());
        assertThat(configfs.entries("ports")).containsExactly(Exporter.portId(ADDRESS).dirName());
        assertThat(store.list(ExportRecord.class)).containsExactly(record);
    }

    @Test
    void anUnrecordedSubsystemIsPrunedOnlyWhenItsVolumeIsThisInstallations() {
        BackendVolume ours = zvol("pvc-ours");
        exporter.apply(record(ours, ours.device(), HOST)); // a crash then lost its record
        // another installation on this host exports its own volume, which no backend of this agent holds
        Path theirs = dir.resolve("dev/zd999");
        configfs.addBlockDevice(theirs);
        Nqn foreign = ExportRecord.subsystemNqn(VolumeId.of("pvc-theirs"));
        exporter.apply(new ExportRecord(VolumeId.of("pvc-theirs"), "zfs", theirs, ADDRESS, true, Set.of(HOST2)));

        assertThat(ExportReapply.run(store, exporter, backends)).isEmpty();

        assertThat(configfs.entries("subsystems")).as("this installation's orphan pruned, the other's left")
                .containsExactly(foreign.value());
        assertThat(configfs.entries("subsystems/" + foreign + "/allowed_hosts")).containsExactly(HOST2.value());
    }

    @Test
    void anUnrecordedSubsystemIsLeftWhileNoBackendCanTellWhoseItIs() {
        BackendVolume ours = zvol("pvc-ours");
        exporter.apply(record(ours, ours.device(), HOST));
        Map<String, VolumeBackend> unreadable = Map.of("zfs", new ZfsVolumeBackend(new BackendConfig("zfs",
                BackendKind.BACKEND_KIND_ZFS_ZVOL, "tank", "k8s"), failing(), dir.resolve("dev"), dir.resolve("sys"), Path.of(ZVOL_ID),
                Duration.ofSeconds(5), Duration.ofSeconds(5)));

        ExportReapply.run(store, exporter, unreadable);

        assertThat(configfs.entries("subsystems")).containsExactly(ExportRecord.subsystemNqn(ours.id()).value());
    }

    private static ProcessRunner failing() {
        return command -> {
            throw new CommandFailedException(command, 1, "cannot open 'tank': no such pool", false);
        };
    }

    @Test
    void aZvolWhoseDeviceNumberChangedIsExportedByItsNewNodeAndTheRecordFollows() {
        BackendVolume a = zvol("pvc-a"); // zd0
        BackendVolume b = zvol("pvc-b"); // zd16
        assertThat(b.device()).isNotEqualTo(a.device());
        // before the reboot pvc-b had the node pvc-a has now: exporting the recorded path would serve pvc-a's data
        store.write(record(b, a.device(), HOST));

        assertThat(ExportReapply.run(store, exporter, backends)).isEmpty();
        Nqn nqn = ExportRecord.subsystemNqn(b.id());
        assertThat(configfs.value("subsystems/" + nqn + "/namespaces/1/device_path")).contains(b.device().toString());
        assertThat(store.read(b.id(), ExportRecord.class).orElseThrow().device()).isEqualTo(b.device());
        assertThat(exporter.drift(store.read(b.id(), ExportRecord.class).orElseThrow())).isEmpty();
    }

    @Test
    void aRecordThatCannotBeAppliedIsReportedAndTheOthersGoThrough() {
        BackendVolume a = zvol("pvc-a");
        store.write(record(a, a.device()));
        store.write(new ExportRecord(VolumeId.of("pvc-gone"), "zfs", Path.of("/dev/zd32"), ADDRESS, false, Set.of()));
        store.write(new ExportRecord(VolumeId.of("pvc-lvm"), "lvm", Path.of("/dev/vg0/pvc-lvm"), ADDRESS, false, Set.of()));

        List<String> failures = ExportReapply.run(store, exporter, backends);
        assertThat(failures).containsExactly(
                "pvc-gone: the volume does not exist on backend zfs; the export stays recorded and is not applied",
                "pvc-lvm: its backend lvm is not configured on this agent any more; the export stays recorded and is not applied");
        assertThat(configfs.entries("subsystems")).containsExactly(ExportRecord.subsystemNqn(a.id()).value());
        assertThat(store.list(ExportRecord.class)).hasSize(3);
    }

    @Test
    void aBackendThatCannotBeReadAtOnceHasItsRecordsLookedUpOneByOne() {
        BackendVolume a = zvol("pvc-a");
        BackendVolume b = zvol("pvc-b");
        store.write(record(a, a.device(), HOST));
        store.write(record(b, b.device()));
        List<List<String>> commands = new ArrayList<>();
        ProcessRunner noRecursiveReads = command -> {
            commands.add(command.argv());
            if (command.argv().contains("-r")) {
                throw new CommandFailedException(command, 1, "cannot iterate filesystems: I/O error", false);
            }
            return zfs.run(command);
        };
        Map<String, VolumeBackend> flaky = Map.of("zfs", new ZfsVolumeBackend(new BackendConfig("zfs",
                BackendKind.BACKEND_KIND_ZFS_ZVOL, "tank", "k8s"), noRecursiveReads, dir.resolve("dev"), dir.resolve("sys"),
                Path.of(ZVOL_ID), Duration.ofSeconds(5), Duration.ofSeconds(5)));

        assertThat(ExportReapply.run(store, exporter, flaky)).isEmpty();
        assertThat(configfs.entries("subsystems")).containsExactlyInAnyOrder(ExportRecord.subsystemNqn(a.id()).value(),
                ExportRecord.subsystemNqn(b.id()).value());
        assertThat(commands.stream().filter(argv -> argv.contains("-r"))).hasSize(1);
        assertThat(commands.stream().filter(argv -> argv.getLast().startsWith("tank/k8s/pvc-"))).hasSize(2);
    }
}
