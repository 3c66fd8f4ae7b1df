package pillar.agent.backend.zfs;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import pillar.api.value.ByteSize;
import pillar.runtime.exec.Command;

/**
 * ZvolDevices without udev against the fake zfs: what it remembers of a device is tied to that device
 * instance ({@code zdN} and its {@code diskseq}), so a reused number, a rename by the agent and a rename
 * by someone else never hand out the wrong device.
 */
class ZvolDevicesTest {
    private static final String ZVOL_ID = "/lib/udev/zvol_id";
    private static final long SIZE = ByteSize.ofMiB(64).bytes();

    @TempDir
    Path root;

    private final AtomicLong clock = new AtomicLong();
    private FakeZfs zfs;
    private ZvolDevices devices;

    @BeforeEach
    void devices() {
        Path dev = root.resolve("dev");
        Path sys = root.resolve("sys");
        zfs = new FakeZfs("tank", ByteSize.ofGiB(10).bytes(), dev, sys, ZVOL_ID, FakeZfs.Devices.NO_UDEV).withFilesystem("tank/k8s");
        devices = new ZvolDevices(zfs, dev, sys, Path.of(ZVOL_ID), Duration.ofSeconds(5), clock::get);
    }

    @Test
    void aReusedZdNumberIsAnotherDevice() {
        zfs.addForeignZvol("tank/k8s/a", SIZE, 8192);
        Path zd0 = devices.find("tank/k8s/a", SIZE).orElseThrow();
        zfs.run(zfs("destroy", "tank/k8s/a"));
        zfs.addForeignZvol("tank/k8s/b", SIZE, 8192);

        assertThat(devices.find("tank/k8s/b", SIZE)).contains(zd0);
        assertThat(devices.find("tank/k8s/a", SIZE)).isEmpty();
    }

    @Test
    void aRenameByTheAgentIsForgottenAtOnce() {
        zfs.addForeignZvol("tank/k8s/a_receiving", SIZE, 8192);
        Path zd0 = devices.find("tank/k8s/a_receiving", SIZE).orElseThrow();
        zfs.run(zfs("rename", "tank/k8s/a_receiving", "tank/k8s/a"));
        devices.renamed("tank/k8s/a_receiving");

        assertThat(devices.find("tank/k8s/a", SIZE)).contains(zd0);
        assertThat(devices.find("tank/k8s/a_receiving", SIZE)).isEmpty();
    }

    @Test
    void aRenameBySomeoneElseIsNeverHandedOutUnderTheOldNameAndIsFoundAtTheRecheck() {
        zfs.addForeignZvol("tank/k8s/a", SIZE, 8192);
        Path zd0 = devices.find("tank/k8s/a", SIZE).orElseThrow();
        zfs.run(zfs("rename", "tank/k8s/a", "tank/k8s/c"));

        assertThat(devices.find("tank/k8s/c", SIZE)).as("remembered as a, not asked again yet").isEmpty();
        clock.addAndGet(TimeUnit.SECONDS.toNanos(ZvolDevices.RECHECK_SECONDS));
        assertThat(devices.find("tank/k8s/c", SIZE)).contains(zd0);

        zfs.run(zfs("rename", "tank/k8s/c", "tank/k8s/d"));
        zfs.addForeignZvol("tank/k8s/c", SIZE, 8192); // a new zvol under the old name: another device
        assertThat(devices.find("tank/k8s/c", SIZE)).hasValueSatisfying(zd -> assertThat(zd).isNotEqualTo(zd0));
    }

    private static Command zfs(String... args) {
        String[] argv = new String[args.length + 1];
        argv[0] = "zfs";
        System.arraycopy(args, 0, argv, 1, args.length);
        return Command.of(Duration.ofSeconds(5), argv);
    }
}
