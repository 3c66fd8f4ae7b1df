package pillar.agent.backend.zfs;

import static org.assertj.core.api.Assertions.assertThat;
import static pillar.agent.backend.BackendAssertions.assertFails;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import pillar.agent.backend.BackendException.Kind;
import pillar.agent.backend.BackendVolume;
import pillar.agent.backend.KernelExports;
import pillar.agent.config.BackendConfig;
import pillar.agent.state.InstallationId;
import pillar.api.agent.v1.BackendKind;
import pillar.api.value.ByteSize;
import pillar.api.value.VolumeId;
import pillar.runtime.exec.Command;

/**
 * {@link ZfsVolumeBackend#adopt} against the fake zfs, with sysfs and procfs under a temporary root: a zvol made
 * with a plain {@code zfs create -V} gets its mark in one {@code zfs set} and keeps its bytes; a retry returns it;
 * another installation's mark, a filesystem, a small zvol, or one the kernel exports, a device stacks on, a mount
 * or a process holds is refused with its mark as it was.
 */
class ZfsVolumeAdoptTest {
    private static final VolumeId PVC1 = VolumeId.of("pvc-1");
    private static final String ZVOL_ID = "/lib/udev/zvol_id";
    private static final String MANAGED = ZfsBackend.MANAGED_PROPERTY;
    private static final byte[] DATA = "an operator's filesystem".getBytes(StandardCharsets.US_ASCII);

    @TempDir
    Path root;

    private FakeZfs zfs;
    private ZfsVolumeBackend backend;

    @BeforeEach
    void poolWithAParent() throws IOException {
        zfs = new FakeZfs("tank", ByteSize.ofGiB(10).bytes(), root.resolve("dev"), root.resolve("sys"), ZVOL_ID, FakeZfs.Devices.UDEV)
                .withFilesystem("tank/k8s");
        Files.createDirectories(root.resolve("proc/self"));
        Files.writeString(root.resolve("proc/self/mountinfo"), "22 1 8:1 / / rw,relatime shared:1 - ext4 /dev/sda1 rw\n");
        backend = new ZfsVolumeBackend(new BackendConfig("zfs", BackendKind.BACKEND_KIND_ZFS_ZVOL, "tank", "k8s"), zfs,
                root.resolve("dev"), root.resolve("sys"), root.resolve("proc"), Path.of(ZVOL_ID), Duration.ofSeconds(5), Duration.ofSeconds(5),
                InstallationId.EMBEDDED);
    }

    /** As an operator runs it: {@code zfs create [-o p=v]... -V BYTES tank/k8s/NAME}. */
    private void operatorCreates(String name, String... options) {
        List<String> argv = new java.util.ArrayList<>(List.of("zfs", "create"));
        for (String option : options) {
            argv.addAll(List.of("-o", option));
        }
        argv.addAll(List.of("-V", Long.toString(64 * ByteSize.MIB), "tank/k8s/" + name));
        zfs.run(new Command(argv, Duration.ofSeconds(5)));
    }

    private List<List<String>> sets() {
        return zfs.argvs().stream().filter(a -> a.get(0).equals("zfs") && a.get(1).equals("set")).toList();
    }

    @Test
    void aPlainZvolIsMarkedInOneZfsSetAndKeepsItsBytes() throws IOException {
        operatorCreates("pvc-1");
        Files.write(zfs.zd(0), DATA);

        BackendVolume volume = backend.adopt(PVC1, ByteSize.ofMiB(64), KernelExports.NONE);

        assertThat(volume).isEqualTo(new BackendVolume(PVC1, ByteSize.ofMiB(64), root.resolve("dev/zvol/tank/k8s/pvc-1")));
        assertThat(sets()).containsExactly(List.of("zfs", "set", MANAGED + "=embedded", "tank/k8s/pvc-1"));
        assertThat(zfs.properties("tank/k8s/pvc-1")).containsEntry(MANAGED, "embedded");
        assertThat(Files.readAllBytes(zfs.zd(0))).isEqualTo(DATA);
        assertThat(backend.find(PVC1)).contains(volume);
    }

    @Test
    void aRetryReturnsTheAdoptedZvolWithoutAskingAboutItsUse() {
        operatorCreates("pvc-1");
        BackendVolume first = backend.adopt(PVC1, ByteSize.of(0), KernelExports.NONE);

        BackendVolume again = backend.adopt(PVC1, ByteSize.of(0), exporting("nvmet subsystem of the export made since"));

        assertThat(again).isEqualTo(first);
        assertThat(sets()).hasSize(1);
    }

    @Test
    void anotherInstallationsMarkLocalOrInheritedIsForeign() {
        operatorCreates("pvc-1", MANAGED + "=staging");

        assertFails(() -> backend.adopt(PVC1, ByteSize.of(0), KernelExports.NONE), Kind.FOREIGN, "is staging (local)");
        zfs.withProperty("tank/k8s", MANAGED, "staging");
        operatorCreates("pvc-2");
        assertFails(() -> backend.adopt(VolumeId.of("pvc-2"), ByteSize.of(0), KernelExports.NONE), Kind.FOREIGN,
                "inherited from tank/k8s");
        assertThat(zfs.properties("tank/k8s/pvc-1")).containsEntry(MANAGED, "staging");
        assertThat(zfs.properties("tank/k8s/pvc-2")).doesNotContainKey(MANAGED);
        assertThat(sets()).isEmpty();
    }

    @Test
    void aFilesystemOrNothingIsNotFoundAndASmallZvolOutOfRange() {
        zfs.withFilesystem("tank/k8s/pvc-2");
        operatorCreates("pvc-1");

        assertFails(() -> backend.adopt(VolumeId.of("pvc-2"), ByteSize.of(0), KernelExports.NONE), Kind.NOT_FOUND,
                "tank/k8s/pvc-2 is a ZFS filesystem, not a zvol");
        assertFails(() -> backend.adopt(VolumeId.of("pvc-3"), ByteSize.of(0), KernelExports.NONE), Kind.NOT_FOUND,
                "no dataset named tank/k8s/pvc-3");
        assertFails(() -> backend.adopt(PVC1, ByteSize.ofMiB(65), KernelExports.NONE), Kind.OUT_OF_RANGE, "smaller than the 65MiB");
        assertThat(sets()).isEmpty();
    }

    @Test
    void aZvolTheKernelsTargetExportsIsInUse() {
        operatorCreates("pvc-1");

        assertFails(() -> backend.adopt(PVC1, ByteSize.of(0), exporting("nvmet subsystem testnqn has it")), Kind.IN_USE,
                "nvmet subsystem testnqn has it");
        assertThat(zfs.properties("tank/k8s/pvc-1")).doesNotContainKey(MANAGED);
    }

    @Test
    void aZvolADeviceIsStackedOnIsInUse() throws IOException {
        operatorCreates("pvc-1");
        Files.createDirectories(root.resolve("sys/block/zd0/holders/dm-3"));

        assertFails(() -> backend.adopt(PVC1, ByteSize.of(0), KernelExports.NONE), Kind.IN_USE, "zd0 is held by [dm-3]");
        assertThat(zfs.properties("tank/k8s/pvc-1")).doesNotContainKey(MANAGED);
    }

    @Test
    void aMountedZvolIsInUse() throws IOException {
        operatorCreates("pvc-1");
        Files.writeString(root.resolve("proc/self/mountinfo"), "36 22 " + FakeZfs.ZVOL_MAJOR + ":0 / /mnt/old\\040data rw - ext4 /dev/zd0 rw\n",
                java.nio.file.StandardOpenOption.APPEND);

        assertFails(() -> backend.adopt(PVC1, ByteSize.of(0), KernelExports.NONE), Kind.IN_USE, "is mounted at /mnt/old data");
        assertThat(zfs.properties("tank/k8s/pvc-1")).doesNotContainKey(MANAGED);
    }

    @Test
    void aZvolAProcessHoldsOpenIsInUse() throws IOException {
        operatorCreates("pvc-1");
        Path fds = Files.createDirectories(root.resolve("proc/4242/fd"));
        Files.createSymbolicLink(fds.resolve("0"), Path.of("/dev/null"));
        Files.createSymbolicLink(fds.resolve("3"), zfs.zd(0));
        Files.writeString(root.resolve("proc/4242/comm"), "qemu-system-x86\n");

        assertFails(() -> backend.adopt(PVC1, ByteSize.of(0), KernelExports.NONE), Kind.IN_USE, "open in process 4242 (qemu-system-x86)");
        assertThat(zfs.properties("tank/k8s/pvc-1")).doesNotContainKey(MANAGED);
    }

    /** Exports in which every device is exported, as {@code what} says. */
    private static KernelExports exporting(String what) {
        return new KernelExports() {
            @Override
            public Optional<String> device(Path device) {
                return Optional.of(what);
            }

            @Override
            public Optional<String> directory(Path directory) {
                return Optional.empty();
            }
        };
    }
}
