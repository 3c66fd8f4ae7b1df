package pillar.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static pillar.agent.VmBed.run;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import pillar.api.agent.v1.CopyMode;
import pillar.api.agent.v1.CreateSnapshotRequest;
import pillar.api.agent.v1.CreateVolumeRequest;
import pillar.api.agent.v1.DeleteSnapshotRequest;
import pillar.api.agent.v1.DeleteVolumeRequest;
import pillar.api.agent.v1.VolumeSource;
import pillar.api.fencing.FencingToken;
import pillar.api.value.LifecycleUid;

/**
 * What a snapshot, a restore and a clone cost on the real kernel, next to the bare commands doing the
 * same in the same run: CreateSnapshot, CreateVolume from the snapshot (linked, and on ZFS also an
 * independent copy), CreateVolume from the volume (a clone) and DeleteSnapshot over real gRPC to the
 * agent process, for an LVM thin LV and a ZFS zvol each holding 32 MiB of data, against
 * {@code lvcreate -s} and {@code lvremove}, and {@code zfs snapshot}, {@code zfs clone},
 * {@code zfs send | zfs recv} and {@code zfs destroy}. Agent and bare runs alternate,
 * {@value #DEFAULT_REPS} of each (or {@code PILLAR_TIMING_REPS}); the table shows the medians and their ratio. It asserts that every call did its job, never how long it
 * took. A benchmark: {@code dev/bench --group 2} runs it ({@code dev/kernel-it --class SnapshotTimingVmBench}).
 */
class SnapshotTimingVmBench {
    private static final int DEFAULT_REPS = 3;
    private static final long MIB = 1L << 20;
    private static final String VG = "pillarsnapvg";
    private static final String POOL = "pillarsnappool";
    private static final List<String> CALLS = List.of("CreateSnapshot", "Restore (linked)", "Restore (copy)",
            "Clone (linked)", "DeleteSnapshot");
    private static final Map<String, String> BARE_STEPS = Map.of(
            "CreateSnapshot", "lvcreate -s | zfs snapshot",
            "Restore (linked)", "lvcreate -s -kn -ay of the snapshot | zfs clone",
            "Restore (copy)", "zfs send | zfs recv, zfs destroy of the received snapshot",
            "Clone (linked)", "lvcreate -s -kn -ay of the volume | zfs snapshot + zfs clone",
            "DeleteSnapshot", "lvremove | zfs destroy -d");
    /** The backends that take snapshots (an LVM linear one refuses them). */
    private static final List<String> BACKENDS = List.of("thin", "zfs");

    @TempDir
    Path dir;

    private final Map<String, List<Long>> agentMs = new LinkedHashMap<>();
    private final Map<String, List<Long>> bareMs = new LinkedHashMap<>();
    private AgentProcess agent;
    private Path lvmLoop;
    private Path zfsLoop;

    @BeforeAll
    static void requireVm() {
        VmBed.requireVm(true);
    }

    @Test
    void eachSnapshotCallNextToItsBareCommands() throws Exception {
        lvmLoop = VmBed.loopDevice(dir, "pv", 1024 * MIB);
        VmBed.volumeGroup(VG, lvmLoop, "512m");
        zfsLoop = VmBed.loopDevice(dir, "zpool", 1024 * MIB);
        VmBed.zpool(POOL, zfsLoop);
        Path config = AgentProcess.writeConfig(dir.resolve("agent.yaml"), 19502, 19812, dir.resolve("state"), List.of(),
                "{name: thin, type: lvm-thin, volume-group: " + VG + ", thin-pool: pool0}",
                "{name: zfs, type: zfs, pool: " + POOL + ", parent-dataset: k8s}");
        agent = new AgentProcess(dir, 19502, 19812);
        agent.start(config);

        int reps = Optional.ofNullable(System.getenv("PILLAR_TIMING_REPS")).map(Integer::parseInt).orElse(DEFAULT_REPS);
        for (int rep = 0; rep < reps; rep++) {
            for (String backend : BACKENDS) {
                if (rep % 2 == 0) {
                    viaAgent(backend, rep);
                    bare(backend, rep);
                } else {
                    bare(backend, rep);
                    viaAgent(backend, rep);
                }
            }
        }
        printTable(reps);
    }

    private void viaAgent(String backend, int rep) throws Exception {
        String source = "pvc-src-" + backend + "-" + rep;
        String snapshot = "snapshot-" + backend + "-" + rep;
        pillar.api.agent.v1.FencingToken sourceToken = token();
        pillar.api.agent.v1.FencingToken snapshotToken = token();
        Path device = Path.of(agent.stub().createVolume(CreateVolumeRequest.newBuilder().setToken(sourceToken)
                .setVolumeId(source).setBackend(backend).setSizeBytes(64 * MIB).build()).getVolume().getDevicePath());
        String data = fill(device);
        timed(agentMs, backend, "CreateSnapshot", () -> assertThat(agent.stub().createSnapshot(CreateSnapshotRequest.newBuilder()
                .setToken(snapshotToken).setSnapshotId(snapshot).setBackend(backend).setSourceVolumeId(source).build())
                .getSnapshot().getReadyToUse()).isTrue());
        List<String> made = new ArrayList<>();
        Map<String, VolumeSource> sources = new LinkedHashMap<>();
        sources.put("Restore (linked)", VolumeSource.newBuilder().setSnapshotId(snapshot).setMode(CopyMode.COPY_MODE_LINKED).build());
        if (backend.equals("zfs")) {
            sources.put("Restore (copy)", VolumeSource.newBuilder().setSnapshotId(snapshot)
                    .setMode(CopyMode.COPY_MODE_INDEPENDENT).build());
        }
        sources.put("Clone (linked)", VolumeSource.newBuilder().setVolumeId(source).setMode(CopyMode.COPY_MODE_LINKED).build());
        Map<String, pillar.api.agent.v1.FencingToken> tokens = new LinkedHashMap<>();
        for (Map.Entry<String, VolumeSource> s : sources.entrySet()) {
            String id = "pvc-" + s.getKey().replaceAll("[^a-z]", "") + "-" + backend + "-" + rep;
            pillar.api.agent.v1.FencingToken t = token();
            tokens.put(id, t);
            Path made1 = Path.of(timed(agentMs, backend, s.getKey(), () -> agent.stub().createVolume(CreateVolumeRequest
                    .newBuilder().setToken(t).setVolumeId(id).setBackend(backend).setSizeBytes(64 * MIB).setSource(s.getValue())
                    .build())).getVolume().getDevicePath());
            assertThat(read(made1)).as(s.getKey() + " holds the source's data").isEqualTo(data);
            made.add(id);
        }
        timed(agentMs, backend, "DeleteSnapshot", () -> agent.stub().deleteSnapshot(DeleteSnapshotRequest.newBuilder()
                .setToken(snapshotToken).setSnapshotId(snapshot).setBackend(backend).build()));
        for (String id : made) {
            agent.stub().deleteVolume(DeleteVolumeRequest.newBuilder().setToken(tokens.get(id)).setVolumeId(id)
                    .setBackend(backend).build());
        }
        agent.stub().deleteVolume(DeleteVolumeRequest.newBuilder().setToken(sourceToken).setVolumeId(source)
                .setBackend(backend).build());
        assertNothingLeft(backend);
    }

    private void bare(String backend, int rep) throws Exception {
        String source = "bare-src-" + backend + "-" + rep;
        String snapshot = "bare-snap-" + backend + "-" + rep;
        boolean zfs = backend.equals("zfs");
        String ds = POOL + "/k8s/";
        Path device;
        if (zfs) {
            run("zfs", "create", "-V", "64M", "-s", "-b", "16K", "-o", "volmode=dev", ds + source);
            device = awaitZvol(ds + source);
        } else {
            run("lvcreate", "-q", "-y", "-n", source, "-V", "64m", "--thinpool", "pool0", VG);
            device = Path.of("/dev", VG, source);
        }
        String data = fill(device);
        timed(bareMs, backend, "CreateSnapshot", () -> run(zfs ? new String[] {"zfs", "snapshot", ds + source + "@" + snapshot}
                : new String[] {"lvcreate", "-q", "-s", "-n", snapshot, VG + "/" + source}));
        String restored = "bare-restore-" + backend + "-" + rep;
        Path restoredDevice = timed(bareMs, backend, "Restore (linked)", () -> {
            if (zfs) {
                run("zfs", "clone", "-o", "volmode=dev", ds + source + "@" + snapshot, ds + restored);
                return awaitZvol(ds + restored);
            }
            run("lvcreate", "-q", "-s", "-kn", "-ay", "-n", restored, VG + "/" + snapshot);
            return Path.of("/dev", VG, restored);
        });
        assertThat(read(restoredDevice)).isEqualTo(data);
        if (zfs) {
            String copy = "bare-copy-" + rep;
            Path copyDevice = timed(bareMs, backend, "Restore (copy)", () -> {
                sendReceive(ds + source + "@" + snapshot, ds + copy);
                run("zfs", "destroy", ds + copy + "@" + snapshot);
                return awaitZvol(ds + copy);
            });
            assertThat(read(copyDevice)).isEqualTo(data);
        }
        String clone = "bare-clone-" + backend + "-" + rep;
        Path cloneDevice = timed(bareMs, backend, "Clone (linked)", () -> {
            if (zfs) {
                run("zfs", "snapshot", ds + source + "@for-" + clone);
                run("zfs", "clone", "-o", "volmode=dev", ds + source + "@for-" + clone, ds + clone);
                return awaitZvol(ds + clone);
            }
            run("lvcreate", "-q", "-s", "-kn", "-ay", "-n", clone, VG + "/" + source);
            return Path.of("/dev", VG, clone);
        });
        assertThat(read(cloneDevice)).isEqualTo(data);
        if (zfs) {
            // deferred while its restore exists, as the agent's DeleteSnapshot is: it goes with the restore
            timed(bareMs, backend, "DeleteSnapshot", () -> run("zfs", "destroy", "-d", ds + source + "@" + snapshot));
            run("zfs", "destroy", ds + restored);
            run("zfs", "destroy", "-R", ds + source);
            run("zfs", "destroy", ds + "bare-copy-" + rep);
        } else {
            timed(bareMs, backend, "DeleteSnapshot", () -> run("lvremove", "-q", "-f", VG + "/" + snapshot));
            for (String lv : List.of(restored, clone, source)) {
                run("lvremove", "-q", "-f", VG + "/" + lv);
            }
        }
        assertNothingLeft(backend);
    }

    private static pillar.api.agent.v1.FencingToken token() {
        return FencingToken.of(LifecycleUid.random(), 1).toProto();
    }

    /** Writes 32 MiB of seeded data at the device's start, flushed; returns its checksum. */
    private static String fill(Path device) throws IOException {
        byte[] data = new byte[32 << 20];
        new java.util.Random(device.toString().hashCode()).nextBytes(data);
        try (var channel = java.nio.channels.FileChannel.open(device, java.nio.file.StandardOpenOption.WRITE)) {
            channel.write(java.nio.ByteBuffer.wrap(data), 0);
            channel.force(true);
        }
        return VmBed.sha256(data);
    }

    private static String read(Path device) throws IOException {
        byte[] data = new byte[32 << 20];
        try (var in = Files.newInputStream(device)) {
            int n = in.readNBytes(data, 0, data.length);
            assertThat(n).isEqualTo(data.length);
        }
        return VmBed.sha256(data);
    }

    /** {@code zfs send SNAPSHOT | zfs recv DATASET}, no shell: two processes joined by a pipe, with a deadline. */
    private static void sendReceive(String snapshot, String dataset) throws Exception {
        List<Process> pipeline = ProcessBuilder.startPipeline(List.of(
                new ProcessBuilder("zfs", "send", snapshot).redirectError(ProcessBuilder.Redirect.INHERIT),
                new ProcessBuilder("zfs", "recv", "-o", "volmode=dev", dataset).redirectError(ProcessBuilder.Redirect.INHERIT)));
        for (Process p : pipeline) {
            assertThat(p.waitFor(5, TimeUnit.MINUTES)).as("zfs send | recv finished").isTrue();
            assertThat(p.exitValue()).as("exit status of " + p.info().command().orElse("zfs")).isZero();
        }
    }

    /** Without udev: the zd device whose zvol_id names the dataset, once devtmpfs has made it. */
    private static Path awaitZvol(String dataset) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (System.nanoTime() < deadline) {
            for (String zd : VmBed.entries(Path.of("/sys/block"))) {
                Path node = Path.of("/dev", zd);
                if (zd.startsWith("zd") && Files.exists(node) && zvolId(node).equals(dataset)) {
                    return node;
                }
            }
            Thread.sleep(20);
        }
        throw new AssertionError("no /dev/zdN for " + dataset);
    }

    private static String zvolId(Path node) {
        try {
            return run("/lib/udev/zvol_id", node.toString()).strip();
        } catch (RuntimeException e) {
            return "";
        }
    }

    private static void assertNothingLeft(String backend) {
        if (backend.equals("zfs")) {
            assertThat(run("zfs", "list", "-H", "-t", "all", "-o", "name", "-r", POOL + "/k8s").strip()).isEqualTo(POOL + "/k8s");
        } else {
            assertThat(run("lvs", "--noheadings", "-o", "lv_name", VG).lines().map(String::strip)
                    .filter(l -> !l.isEmpty()).toList()).containsExactly("pool0");
        }
    }

    private interface Call<T> {
        T call() throws Exception;
    }

    private interface Step {
        void run() throws Exception;
    }

    private static <T> T timed(Map<String, List<Long>> into, String backend, String call, Call<T> what) throws Exception {
        long start = System.nanoTime();
        T result = what.call();
        into.computeIfAbsent(backend + " " + call, k -> new ArrayList<>()).add((System.nanoTime() - start) / 1_000_000);
        return result;
    }

    private static void timed(Map<String, List<Long>> into, String backend, String call, Step what) throws Exception {
        timed(into, backend, call, () -> {
            what.run();
            return null;
        });
    }

    private void printTable(int reps) {
        String p = "[snapshot-timing] ";
        System.out.println(p + "median of " + reps + " runs each, in ms, in the qemu VM (TCG); agent = the gRPC call as the"
                + " client sees it, bare = the same work by the commands directly; 32 MiB of data in a 64 MiB volume");
        System.out.println(p + String.format("%-17s %-7s %7s %7s %6s  %s", "call", "backend", "agent", "bare", "ratio", "bare steps"));
        for (String call : CALLS) {
            for (String backend : BACKENDS) {
                List<Long> a = agentMs.get(backend + " " + call);
                List<Long> b = bareMs.get(backend + " " + call);
                if (a == null || b == null) {
                    continue;
                }
                System.out.println(p + String.format("%-17s %-7s %7d %7d %5.1fx  %s", call, backend, median(a), median(b),
                        (double) median(a) / Math.max(1, median(b)), BARE_STEPS.get(call)));
            }
        }
        agentMs.forEach((k, v) -> System.out.println(p + "agent " + k + " runs: " + v));
        bareMs.forEach((k, v) -> System.out.println(p + "bare  " + k + " runs: " + v));
    }

    private static long median(List<Long> values) {
        List<Long> sorted = values.stream().sorted().toList();
        int n = sorted.size();
        return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
    }

    @AfterEach
    void cleanUp() throws Exception {
        if (agent != null) {
            agent.close();
        }
        List<VmBed.Step> steps = new ArrayList<>();
        steps.add(() -> run("vgremove", "-q", "-f", VG));
        steps.add(() -> run("zpool", "destroy", "-f", POOL));
        if (lvmLoop != null) {
            steps.add(() -> run("pvremove", "-q", lvmLoop.toString()));
            steps.add(() -> run("losetup", "--detach", lvmLoop.toString()));
        }
        if (zfsLoop != null) {
            steps.add(() -> run("losetup", "--detach", zfsLoop.toString()));
        }
        List<String> problems = VmBed.cleanUp(steps.toArray(VmBed.Step[]::new));
        System.out.println("[snapshot-timing] clean-up: " + (problems.isEmpty() ? "nothing left" : problems));
    }
}
