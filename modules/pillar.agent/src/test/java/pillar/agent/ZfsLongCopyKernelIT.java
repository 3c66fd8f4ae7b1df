package pillar.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static pillar.agent.VmBed.run;

import java.io.RandomAccessFile;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import pillar.api.agent.v1.CopyMode;
import pillar.api.agent.v1.CreateVolumeRequest;
import pillar.api.agent.v1.DeleteVolumeRequest;
import pillar.api.agent.v1.Volume;
import pillar.api.agent.v1.VolumeSource;
import pillar.api.fencing.FencingToken;
import pillar.api.value.LifecycleUid;

/**
 * An independent ZFS copy runs to completion (real kernel, qemu VM, the agent as a process): the zpool's
 * device is a device-mapper {@code delay} target over a loop device (every read and write held
 * {@value #DELAY_MS} ms), so that {@code zfs send | zfs recv} of a {@value #SIZE_MIB} MiB zvol takes more
 * than three times the agent's call budget ({@value #BUDGET_SECONDS} s). The clone's CreateVolume and its
 * retries answer ABORTED with the progress; the agent is SIGKILLed in the middle, which leaves the partial
 * receive (the relay through the agent ends with it); after the restart the retries answer ABORTED resuming
 * at the receive's checkpoint, then OK, and the clone reads the source's checksum. A second clone's copy is
 * then stopped by its DeleteVolume: nothing of it is left, no partial receive, no passage snapshot. Without
 * the background copy, the first CreateVolume answers DEADLINE_EXCEEDED (its pipe capped to the budget).
 */
class ZfsLongCopyKernelIT {
    private static final long MIB = 1L << 20;
    private static final int SIZE_MIB = 32;
    private static final int DELAY_MS = 50;
    private static final int BUDGET_SECONDS = 10;
    private static final String POOL = "pillarlongzp";
    private static final String DM = "pillarlongzslow";
    private static final String SOURCE = "pvc-zsrc";
    private static final String CLONE = "pvc-zclone";
    private static final String ABANDONED = "pvc-zgone";

    @TempDir
    Path dir;

    private final LifecycleUid life = LifecycleUid.random();
    private AgentProcess agent;
    private Path loop;
    private boolean mapped;
    private boolean pooled;

    @BeforeAll
    static void requireVm() {
        VmBed.requireVm(true);
    }

    @Test
    void anIndependentCloneLongerThanThreeCallBudgetsFinishesAcrossAnAgentKillAndADeleteStopsAnother() throws Exception {
        Path config = slowPool();
        agent = new AgentProcess(dir, 19523, 19823);
        agent.start(config);
        Volume source = agent.stub().createVolume(CreateVolumeRequest.newBuilder().setToken(token()).setVolumeId(SOURCE)
                .setBackend("slow").setSizeBytes(SIZE_MIB * MIB).build()).getVolume();
        byte[] pattern = new byte[(int) (SIZE_MIB * MIB)];
        new Random(35).nextBytes(pattern);
        try (RandomAccessFile device = new RandomAccessFile(source.getDevicePath(), "rw")) {
            device.write(pattern);
            device.getFD().sync();
        }
        String checksum = VmBed.sha256(pattern);
        VmBed.redelay(DM, DELAY_MS, DELAY_MS); // the pool made and the source written fast: only the copies are slow

        long start = System.nanoTime();
        int abortedBefore = 0;
        String last = "";
        while (VmBed.percent(last) < 30) {
            last = cloneAnsweringAborted(CLONE);
            abortedBefore++;
            System.out.println("[clone " + abortedBefore + "] ABORTED: " + last);
        }
        agent.kill();
        long killedAt = System.nanoTime();
        String partial = POOL + "/k8s/" + CLONE + "_receiving";
        String token = awaitResumeToken(partial);
        long resumeAt = Long.parseLong(bytesOf(token));
        System.out.println("[killed] the partial receive's token holds " + resumeAt + " bytes");
        assertThat(resumeAt).as("received before the kill").isPositive();

        agent.start(config);
        long restarted = System.nanoTime();
        int abortedAfter = 0;
        String firstAfter = null;
        Volume clone;
        while (true) {
            try {
                clone = agent.stub().createVolume(cloneRequest(CLONE)).getVolume();
                break;
            } catch (StatusRuntimeException e) {
                assertThat(e.getStatus().getCode()).as("%s", e.getStatus()).isEqualTo(Status.Code.ABORTED);
                abortedAfter++;
                firstAfter = firstAfter == null ? e.getStatus().getDescription() : firstAfter;
                System.out.println("[clone after restart " + abortedAfter + "] ABORTED: " + e.getStatus().getDescription());
            }
        }
        long end = System.nanoTime();
        VmBed.redelay(DM, 0, 0);
        assertThat(firstAfter).as("the restarted agent resumes the partial receive").contains("resumed at ");
        assertThat(VmBed.sha256(read(clone.getDevicePath()))).as("the clone's data").isEqualTo(checksum);
        assertThat(run("zfs", "list", "-H", "-t", "all", "-o", "name", "-r", POOL)).doesNotContain("_receiving").doesNotContain("@clone_");

        VmBed.redelay(DM, DELAY_MS, DELAY_MS);
        String gone = cloneAnsweringAborted(ABANDONED);
        System.out.println("[second clone] ABORTED: " + gone);
        // as a CO does: a delete whose budget the copy's stop and the zfs commands on the slow pool spent is retried
        List<String> deleteRetries = new ArrayList<>();
        while (true) {
            try {
                agent.stub().deleteVolume(DeleteVolumeRequest.newBuilder().setToken(token()).setVolumeId(ABANDONED).setBackend("slow")
                        .build());
                break;
            } catch (StatusRuntimeException e) {
                assertThat(e.getStatus().getCode()).as("%s", e.getStatus()).isIn(Status.Code.ABORTED, Status.Code.DEADLINE_EXCEEDED);
                deleteRetries.add(e.getStatus().getCode() + ": " + e.getStatus().getDescription());
                assertThat(deleteRetries).as("the delete's answers before OK").hasSizeLessThan(10);
            }
        }
        System.out.println("[delete while copying] answers before OK: " + deleteRetries);
        String left = run("zfs", "list", "-H", "-t", "all", "-o", "name", "-r", POOL);
        assertThat(left).as("what the deleted clone's copy left").doesNotContain(ABANDONED);
        assertThat(zfsProcesses().stream().filter(l -> l.contains(ABANDONED)).toList()).as("its zfs processes").isEmpty();
        VmBed.redelay(DM, 0, 0);

        double job = (killedAt - start + end - restarted) / 1e9;
        System.out.printf("[figures] %d MiB zvol, reads and writes delayed %d ms, call budget %d s: the copy took %.1f s of agent"
                        + " time (%.1f s before the SIGKILL, %.1f s after the restart), %d ABORTED answers before the kill and %d"
                        + " after, resumed at %d bytes (%d%% of the zvol)%n", SIZE_MIB, DELAY_MS, BUDGET_SECONDS, job,
                (killedAt - start) / 1e9, (end - restarted) / 1e9, abortedBefore, abortedAfter, resumeAt, resumeAt * 100 / (SIZE_MIB * MIB));
        assertThat(job).as("the bed made the copy longer than three call budgets (else it proves nothing)")
                .isGreaterThan(3.0 * BUDGET_SECONDS);
    }

    /** A zpool on a delay target, made with no delay ({@link VmBed#redelay} makes every read and write wait). */
    private Path slowPool() throws Exception {
        loop = VmBed.loopDevice(dir, "zdata", 256 * MIB);
        Path slow = VmBed.delayed(DM, loop, 0, 256 * MIB / 512, 0, 0);
        mapped = true;
        VmBed.zpool(POOL, slow);
        pooled = true;
        Path config = AgentProcess.writeConfig(dir.resolve("agent.yaml"), 19523, 19823,
                dir.resolve("state"), List.of("call-budget-seconds: " + BUDGET_SECONDS),
                "{name: slow, type: zfs, pool: " + POOL + ", parent-dataset: k8s}");
        return config;
    }

    private CreateVolumeRequest cloneRequest(String volume) {
        return CreateVolumeRequest.newBuilder().setToken(token()).setVolumeId(volume).setBackend("slow").setSizeBytes(SIZE_MIB * MIB)
                .setSource(VolumeSource.newBuilder().setVolumeId(SOURCE).setMode(CopyMode.COPY_MODE_INDEPENDENT)).build();
    }

    /** A clone's CreateVolume that must answer ABORTED with the copy's progress; its description. */
    private String cloneAnsweringAborted(String volume) {
        try {
            agent.stub().createVolume(cloneRequest(volume));
        } catch (StatusRuntimeException e) {
            assertThat(e.getStatus().getCode()).as("%s", e.getStatus()).isEqualTo(Status.Code.ABORTED);
            assertThat(e.getStatus().getDescription()).contains("copying " + POOL + "/k8s/" + SOURCE + "@clone_" + volume);
            return e.getStatus().getDescription();
        }
        throw new AssertionError("the clone's CreateVolume answered OK before the agent was killed: the bed is not slow enough");
    }

    /**
     * The resume token of the partial receive, once the receive that the agent's death cut short has saved it
     * (its zfs recv exits on the end of its input, a moment after the agent).
     */
    private static String awaitResumeToken(String partial) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofMinutes(3).toNanos();
        while (true) {
            boolean receiving = zfsProcesses().stream().anyMatch(l -> l.startsWith("zfs recv"));
            String token = run("zfs", "get", "-Hp", "-o", "value", "receive_resume_token", partial).strip();
            if (!receiving && !token.equals("-")) {
                return token;
            }
            assertThat(System.nanoTime() - deadline).as("a saved partial receive of %s (token %s)", partial, token).isNegative();
            Thread.sleep(500);
        }
    }

    /** The command lines of the zfs processes running now. */
    private static List<String> zfsProcesses() {
        return run("ps", "-eo", "args").lines().filter(l -> l.startsWith("zfs ")).toList();
    }

    /** The {@code bytes} of a resume token's contents, as {@code zfs send -nv -t} prints them. */
    private static String bytesOf(String token) {
        String contents = VmBed.runMerged("zfs", "send", "-nv", "-t", token);
        Matcher m = Pattern.compile("bytes = (0x[0-9a-f]+|\\d+)").matcher(contents);
        assertThat(m.find()).as("bytes in %s", contents).isTrue();
        return m.group(1).startsWith("0x") ? Long.toString(Long.parseLong(m.group(1).substring(2), 16)) : m.group(1);
    }

    private pillar.api.agent.v1.FencingToken token() {
        return FencingToken.of(life, 1).toProto();
    }

    private static byte[] read(String device) throws Exception {
        byte[] all = new byte[(int) (SIZE_MIB * MIB)];
        try (RandomAccessFile file = new RandomAccessFile(device, "r")) {
            file.readFully(all);
        }
        return all;
    }

    @AfterEach
    void cleanUp() {
        List<String> problems = VmBed.cleanUp(
                () -> {
                    if (agent != null) {
                        agent.close();
                    }
                },
                () -> {
                    if (pooled) {
                        run("zpool", "destroy", "-f", POOL);
                    }
                },
                () -> {
                    if (mapped) {
                        VmBed.removeDelayed(DM);
                    }
                },
                () -> {
                    if (loop != null) {
                        run("losetup", "-d", loop.toString());
                    }
                });
        assertThat(problems).as("clean-up").isEmpty();
    }
}
