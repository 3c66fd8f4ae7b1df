package pillar.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static pillar.agent.VmBed.run;

import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import com.sun.nio.file.ExtendedOpenOption;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import pillar.api.agent.v1.CreateVolumeRequest;
import pillar.api.agent.v1.DeleteVolumeRequest;
import pillar.api.fencing.FencingToken;
import pillar.api.value.LifecycleUid;

/**
 * Long work runs to completion (real kernel, qemu VM, the agent as a process): a linear LV's zeroing on
 * delete, on a volume group whose data PV is a device-mapper {@code delay} target over a loop device
 * (every write held {@value #WRITE_DELAY_MS} ms; the metadata lives on a second, undelayed PV so that only
 * the data is slow), takes more than three times the agent's call budget (set to
 * {@value #BUDGET_SECONDS} s). The DeleteVolume and its retries answer ABORTED with the progress; the agent
 * is SIGKILLed in the middle; after the restart the retries answer ABORTED resuming at the checkpoint,
 * then OK; the LV is gone, and the next volume, on the same extents, reads zeroes. The figures (job
 * duration, ABORTED answers, the resume offset) are printed. Without the background job, the first
 * DeleteVolume answers DEADLINE_EXCEEDED (its blkdiscard capped to the budget) and the test fails there.
 */
class LongWorkKernelIT {
    private static final long MIB = 1L << 20;
    private static final long SIZE = 32 * MIB;
    private static final int WRITE_DELAY_MS = 5000;
    private static final int BUDGET_SECONDS = 10;
    private static final String VG = "pillarlongvg";
    private static final String DM = "pillarlongslow";
    private static final String VOLUME = "pvc-long-a";
    private static final String NEXT = "pvc-long-b";

    @TempDir
    Path dir;

    private final LifecycleUid life = LifecycleUid.random();
    private AgentProcess agent;
    private Path meta;
    private Path data;
    private boolean mapped;

    @BeforeAll
    static void requireVm() {
        VmBed.requireVm(false);
    }

    @Test
    void aLinearDeleteLongerThanThreeCallBudgetsFinishesAcrossAnAgentKillAndTheNextVolumeReadsZeroes() throws Exception {
        Path config = slowLinearVolumeGroup();
        agent = new AgentProcess(dir, 19521, 19821);
        agent.start(config);
        create(VOLUME);
        Path device = Path.of("/dev", VG, VOLUME);
        byte[] pattern = new byte[(int) SIZE];
        new Random(35).nextBytes(pattern);
        write(device, pattern);
        String extents = run("lvs", "--noheadings", "-o", "seg_pe_ranges", VG + "/" + VOLUME).strip();
        VmBed.redelay(DM, 0, WRITE_DELAY_MS); // the bed made and the data written fast: only the zeroing is slow

        long start = System.nanoTime();
        int abortedBefore = 0;
        String last = "";
        while (VmBed.percent(last) < 50) {
            last = deleteAnsweringAborted();
            abortedBefore++;
            System.out.println("[delete " + abortedBefore + "] ABORTED: " + last);
        }
        agent.kill();
        long killedAt = System.nanoTime();
        String tags = run("lvs", "--noheadings", "-o", "lv_tags", VG + "/" + VOLUME).strip();
        System.out.println("[killed] the LV's tags after the SIGKILL: " + tags);
        Matcher checkpoint = Pattern.compile("pillar-csi\\.zeroed:(\\d+)").matcher(tags);
        assertThat(checkpoint.find()).as("a checkpoint tag on the LV: %s", tags).isTrue();
        long resumeAt = Long.parseLong(checkpoint.group(1));
        assertThat(resumeAt).as("checkpointed before the kill").isPositive().isLessThan(SIZE);

        agent.start(config);
        long restarted = System.nanoTime();
        int abortedAfter = 0;
        String firstAfter = null;
        while (true) {
            try {
                agent.stub().deleteVolume(DeleteVolumeRequest.newBuilder().setToken(token()).setVolumeId(VOLUME).setBackend("slow").build());
                break;
            } catch (StatusRuntimeException e) {
                assertThat(e.getStatus().getCode()).as("%s", e.getStatus()).isEqualTo(Status.Code.ABORTED);
                abortedAfter++;
                firstAfter = firstAfter == null ? e.getStatus().getDescription() : firstAfter;
                System.out.println("[delete after restart " + abortedAfter + "] ABORTED: " + e.getStatus().getDescription());
            }
        }
        long end = System.nanoTime();
        VmBed.redelay(DM, 0, 0);
        assertThat(firstAfter).as("the restarted agent resumes at the checkpoint")
                .contains("resumed at " + pillar.api.value.ByteSize.of(resumeAt));
        assertThat(run("lvs", "--noheadings", "-o", "lv_name", VG)).doesNotContain(VOLUME);

        create(NEXT);
        assertThat(run("lvs", "--noheadings", "-o", "seg_pe_ranges", VG + "/" + NEXT).strip()).as("the same extents").isEqualTo(extents);
        byte[] seen = readDirect(Path.of("/dev", VG, NEXT));
        assertThat(firstNonZero(seen)).as("the first non-zero byte of the next volume (-1: none)").isEqualTo(-1);

        double job = (killedAt - start + end - restarted) / 1e9;
        System.out.printf("[figures] %d MiB linear LV, writes delayed %d ms, call budget %d s: zeroing took %.1f s of agent time"
                        + " (%.1f s before the SIGKILL, %.1f s after the restart), %d ABORTED answers before the kill and %d after,"
                        + " resumed at %d bytes (%d MiB) of %d%n", SIZE / MIB, WRITE_DELAY_MS, BUDGET_SECONDS, job,
                (killedAt - start) / 1e9, (end - restarted) / 1e9, abortedBefore, abortedAfter, resumeAt, resumeAt / MIB, SIZE);
        assertThat(job).as("the bed made the zeroing longer than three call budgets (else it proves nothing)")
                .isGreaterThan(3.0 * BUDGET_SECONDS);
    }

    /**
     * A volume group on a fast PV holding the metadata (not allocatable) and a delay target's PV holding the data,
     * made with no delay ({@link VmBed#redelay} slows it down).
     */
    private Path slowLinearVolumeGroup() throws Exception {
        meta = VmBed.loopDevice(dir, "meta", 16 * MIB);
        data = VmBed.loopDevice(dir, "data", 128 * MIB);
        // 1 MiB into the loop device: the PV label written through the delay target is then not at the loop
        // device's own start, where LVM would find it a second time (a duplicate PV, which vgcreate refuses)
        long sectors = 127 * MIB / 512;
        Path slow = VmBed.delayed(DM, data, 2048, sectors, 0, 0);
        mapped = true;
        run("pvcreate", "-q", meta.toString());
        run("pvcreate", "-q", "--metadatacopies", "0", slow.toString());
        run("vgcreate", "-q", VG, meta.toString(), slow.toString());
        run("pvchange", "-q", "-x", "n", meta.toString());
        Path config = AgentProcess.writeConfig(dir.resolve("agent.yaml"), 19521, 19821,
                dir.resolve("state"), List.of("call-budget-seconds: " + BUDGET_SECONDS),
                "{name: slow, type: lvm, volume-group: " + VG + "}");
        return config;
    }

    private void create(String volume) {
        agent.stub().createVolume(CreateVolumeRequest.newBuilder().setToken(token()).setVolumeId(volume).setBackend("slow")
                .setSizeBytes(SIZE).build());
    }

    /** A DeleteVolume that must answer ABORTED; its description. */
    private String deleteAnsweringAborted() {
        try {
            agent.stub().deleteVolume(DeleteVolumeRequest.newBuilder().setToken(token()).setVolumeId(VOLUME).setBackend("slow").build());
        } catch (StatusRuntimeException e) {
            assertThat(e.getStatus().getCode()).as("%s", e.getStatus()).isEqualTo(Status.Code.ABORTED);
            assertThat(e.getStatus().getDescription()).contains("zeroing").contains(" of 32MiB");
            return e.getStatus().getDescription();
        }
        throw new AssertionError("the DeleteVolume answered OK before the agent was killed: the bed is not slow enough");
    }

    private pillar.api.agent.v1.FencingToken token() {
        return FencingToken.of(life, 1).toProto();
    }

    private static void write(Path device, byte[] bytes) throws Exception {
        try (FileChannel channel = FileChannel.open(device, StandardOpenOption.WRITE)) {
            ByteBuffer buffer = ByteBuffer.wrap(bytes);
            while (buffer.hasRemaining()) {
                channel.write(buffer, buffer.position());
            }
            channel.force(true);
        }
    }

    /** The device's bytes read with O_DIRECT: what the disk holds, not a page cache. */
    private static byte[] readDirect(Path device) throws Exception {
        byte[] all = new byte[(int) SIZE];
        ByteBuffer buffer = ByteBuffer.allocateDirect((int) MIB + 4096).alignedSlice(4096);
        try (FileChannel channel = FileChannel.open(device, StandardOpenOption.READ, ExtendedOpenOption.DIRECT)) {
            for (long at = 0; at < SIZE; at += MIB) {
                buffer.clear().limit((int) MIB);
                while (buffer.hasRemaining()) {
                    assertThat(channel.read(buffer, at + buffer.position())).isPositive();
                }
                buffer.flip().get(all, (int) at, (int) MIB);
            }
        }
        return all;
    }

    private static long firstNonZero(byte[] bytes) {
        for (int i = 0; i < bytes.length; i++) {
            if (bytes[i] != 0) {
                return i;
            }
        }
        return -1;
    }

    @AfterEach
    void cleanUp() {
        List<String> problems = VmBed.cleanUp(
                () -> {
                    if (agent != null) {
                        agent.close();
                    }
                },
                () -> run("vgremove", "-q", "-f", VG),
                () -> {
                    if (mapped) {
                        VmBed.removeDelayed(DM);
                    }
                },
                () -> {
                    if (data != null) {
                        run("losetup", "-d", data.toString());
                    }
                },
                () -> {
                    if (meta != null) {
                        run("losetup", "-d", meta.toString());
                    }
                });
        assertThat(problems).as("clean-up").isEmpty();
    }
}
