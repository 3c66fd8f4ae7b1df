package pillar.agent.backend.lvm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static pillar.agent.backend.BackendAssertions.assertFails;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;

import org.junit.jupiter.api.Test;

import pillar.agent.backend.BackendException.Kind;
import pillar.agent.backend.BackendException;
import pillar.agent.backend.BackendVolume;
import pillar.agent.backend.Captures;
import pillar.agent.backend.VolumeBackend.NonZeroingPool;
import pillar.agent.config.BackendConfig;
import pillar.api.agent.v1.BackendKind;
import pillar.runtime.exec.Command;
import pillar.runtime.exec.CommandFailedException;
import pillar.api.value.ByteSize;

/**
 * No remanence on LVM, against the fake whose extents keep a removed LV's bytes (as LVM's do, see
 * {@code DataRemanenceKernelIT}): a linear delete zeroes before lvremove, also when it is retried after
 * a crash or finds the LV inactive, so new and grown volumes read zeroes; a thin pool that does not
 * zero new chunks is reported and refused unless accepted.
 */
class LvmRemanenceTest extends FakeLvmFixture {
    private static final ByteSize SIZE = ByteSize.ofMiB(8);

    @Test
    void theFakeLikeLvmShowsARemovedLvsBytesInANewLvOnItsExtents() throws IOException {
        byte[] pattern = pattern(SIZE.bytes());
        lvm.run(lvcreate("old"));
        write(lvm.node("old"), pattern);
        List<String> extents = lvm.ranges("old");
        lvm.run(Command.of(Duration.ofSeconds(5), "lvremove", "-f", "vg0/old"));
        lvm.run(lvcreate("new"));

        assertThat(lvm.ranges("new")).isEqualTo(extents);
        byte[] seen = read(lvm.node("new"), SIZE.bytes());
        assertThat(Arrays.copyOf(seen, 4096)).as("lvcreate --zero y: the first 4 KiB").containsOnly(0);
        assertThat(Arrays.copyOfRange(seen, 4096, seen.length)).isEqualTo(Arrays.copyOfRange(pattern, 4096, pattern.length));
    }

    @Test
    void aLinearDeleteZeroesBeforeLvremoveSoANewVolumeOnTheSameExtentsReadsZeroes() throws IOException {
        BackendVolume old = linear.create(PVC1, SIZE, Map.of());
        write(old.device(), pattern(SIZE.bytes()));
        List<String> extents = lvm.ranges("pvc-1");

        linear.delete(PVC1);
        BackendVolume fresh = linear.create(PVC2, SIZE, Map.of());

        assertThat(lvm.ranges("pvc-2")).isEqualTo(extents);
        assertThat(read(fresh.device(), SIZE.bytes())).containsOnly(0);
        List<String> programs = lvm.programs();
        assertThat(programs.indexOf("blkdiscard")).isGreaterThan(-1).isLessThan(programs.indexOf("lvremove"));
        long size = SIZE.bytes();
        long chunk = DeviceZeroing.chunk(size);
        assertThat(lvm.argvs()).as("one bounded blkdiscard a chunk").contains(List.of("blkdiscard", "--zeroout", "--offset", "0",
                "--length", Long.toString(chunk), lvm.node("pvc-1").toString()));
        assertThat(lvm.zeroings()).extracting(r -> r[0]).containsExactlyElementsOf(
                java.util.stream.LongStream.range(0, size / chunk).map(i -> i * chunk).boxed().toList());
    }

    @Test
    void aDeleteKilledWhileZeroingKeepsTheVolumeAndItsRetryZeroesAllOfIt() throws IOException {
        BackendVolume old = linear.create(PVC1, SIZE, Map.of());
        write(old.device(), pattern(SIZE.bytes()));
        lvm.interruptZeroing(1);

        assertThatThrownBy(() -> linear.delete(PVC1)).isInstanceOf(BackendException.class)
                .satisfies(e -> assertThat(((BackendException) e).kind()).isEqualTo(Kind.FAILED))
                .hasMessageContaining("the next call resumes zeroing vg0/pvc-1 before its removal at 0B")
                .rootCause().isInstanceOf(CommandFailedException.class)
                .satisfies(e -> assertThat(((CommandFailedException) e).timedOut()).isTrue());
        assertThat(lvm.exists("pvc-1")).as("not removed half zeroed").isTrue();
        assertThat(lvm.programs()).doesNotContain("lvremove");

        linear.delete(PVC1);
        assertThat(lvm.exists("pvc-1")).isFalse();
        assertThat(read(linear.create(PVC2, SIZE, Map.of()).device(), SIZE.bytes())).containsOnly(0);
    }

    @Test
    void anInactiveVolumeIsActivatedToBeZeroed() throws IOException {
        write(linear.create(PVC1, SIZE, Map.of()).device(), pattern(SIZE.bytes()));
        lvm.deactivate("pvc-1");

        linear.delete(PVC1);

        assertThat(lvm.argvs()).contains(List.of("lvchange", "-ay", "-K", "vg0/pvc-1"));
        assertThat(read(linear.create(PVC2, SIZE, Map.of()).device(), SIZE.bytes())).containsOnly(0);
    }

    @Test
    void aGrownVolumeReadsZeroesInExtentsADeletedOneHeld() throws IOException {
        linear.create(PVC1, SIZE, Map.of());
        write(linear.create(PVC2, SIZE, Map.of()).device(), pattern(SIZE.bytes()));
        linear.delete(PVC2);

        linear.expand(PVC1, ByteSize.ofMiB(16));

        assertThat(lvm.ranges("pvc-1")).hasSize(2); // its first 8 MiB, then the freed ones
        assertThat(read(lvm.node("pvc-1"), 16 * ByteSize.MIB)).containsOnly(0);
    }

    @Test
    void thinVolumesAreNotZeroedOnDelete() {
        thin.create(PVC1, SIZE, Map.of());
        thin.delete(PVC1);

        assertThat(lvm.exists("pvc-1")).isFalse();
        assertThat(lvm.programs()).doesNotContain("blkdiscard");
    }

    @Test
    void theZeroingDeadlineGrowsWithTheSize() {
        DeviceZeroing zeroing = new DeviceZeroing(lvm, Duration.ofMinutes(2));
        assertThat(zeroing.deadline(SIZE.bytes())).isEqualTo(Duration.ofSeconds(121));
        assertThat(zeroing.deadline(ByteSize.GIB)).isEqualTo(Duration.ofSeconds(120 + 32 + 1));
        assertThat(zeroing.deadline(1024 * ByteSize.GIB)).isEqualTo(Duration.ofSeconds(120 + 32 * 1024 + 1));
    }

    @Test
    void blkdiscardRefusingAMountedDeviceIsRecognisedAsInUse() {
        assertThat(DeviceZeroing.busy(Captures.lvm("blkdiscard-mounted").failure())).isTrue();
        assertThat(Captures.lvm("blkdiscard-zeroout").exitCode()).isZero();
    }

    @Test
    void aThinPoolThatZeroesHasNoProblemAndNeitherHasALinearBackend() {
        assertThat(thin.problem()).isEmpty();
        assertThat(linear.problem()).isEmpty();
        lvm.setZeroing("pool0", false);
        assertThat(linear.problem()).isEmpty();
        assertThat(backend(new BackendConfig("nopool", BackendKind.BACKEND_KIND_LVM_THIN, "vg0", "pool9")).problem()).as("a missing pool is GetCapacity's to report")
                .isEmpty();
    }

    @Test
    void aThinPoolThatDoesNotZeroIsReportedAndRefusedUnlessAccepted() {
        lvm.setZeroing("pool0", false);

        assertThat(thin.problem()).hasValueSatisfying(problem -> {
            assertThat(problem.reason()).isEqualTo("ThinPoolNotZeroing");
            assertThat(problem.message()).contains("vg0/pool0", "lvchange --zero y vg0/pool0", "PillarStore");
        });
        assertFails(() -> thin.create(PVC1, SIZE, Map.of()), Kind.UNAVAILABLE, "thin pool vg0/pool0 does not zero new chunks");
        assertThat(lvm.programs()).doesNotContain("lvcreate");

        assertThat(thin.create(PVC1, SIZE, Map.of(), NonZeroingPool.ACCEPT).size()).isEqualTo(SIZE);
        assertThat(lvm.exists("pvc-1")).isTrue();

        lvm.setZeroing("pool0", true);
        assertThat(thin.create(PVC2, SIZE, Map.of()).size()).isEqualTo(SIZE);
    }

    @Test
    void aVolumeMadeWhileThePoolZeroedIsReturnedToARetriedCreate() {
        BackendVolume made = thin.create(PVC1, SIZE, Map.of());
        lvm.setZeroing("pool0", false);

        assertThat(thin.create(PVC1, SIZE, Map.of())).isEqualTo(made);
        assertThat(lvm.creations("pvc-1")).isEqualTo(1);
    }

    @Test
    void badInputIsRefusedBeforeThePoolIsRead() {
        lvm.setZeroing("pool0", false);

        assertFails(() -> thin.create(PVC1, SIZE, Map.of("sparse", "true")), Kind.INVALID, "take no volume options");
        assertThat(lvm.argvs()).isEmpty();
    }

    private static Command lvcreate(String name) {
        return Command.of(Duration.ofSeconds(5), "lvcreate", "-y", "--wipesignatures", "y", "--zero", "y", "-n", name, "-L",
                SIZE.bytes() + "b", "vg0");
    }

    private static byte[] pattern(long bytes) {
        byte[] data = new byte[Math.toIntExact(bytes)];
        new Random(13).nextBytes(data);
        return data;
    }

    static void write(Path device, byte[] data) throws IOException {
        try (FileChannel file = FileChannel.open(device, StandardOpenOption.WRITE)) {
            file.write(ByteBuffer.wrap(data), 0);
        }
    }

    /** The whole device: a fake node shorter than its LV reads zeroes past its end, as the fake's nodes do. */
    static byte[] read(Path device, long bytes) throws IOException {
        ByteBuffer data = ByteBuffer.allocate(Math.toIntExact(bytes));
        try (FileChannel file = FileChannel.open(device, StandardOpenOption.READ)) {
            while (data.hasRemaining() && file.read(data) > 0) {
                // to the end of the node
            }
        }
        return data.array();
    }
}
