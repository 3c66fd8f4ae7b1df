package pillar.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static pillar.agent.VmBed.CONFIGFS;
import static pillar.agent.VmBed.run;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import pillar.agent.configfs.ConfigfsNvmetTarget;
import pillar.api.agent.v1.AllowInitiatorRequest;
import pillar.api.agent.v1.CreateVolumeRequest;
import pillar.api.agent.v1.DeleteVolumeRequest;
import pillar.api.agent.v1.ExpandVolumeRequest;
import pillar.api.agent.v1.ExportSpec;
import pillar.api.agent.v1.ExportVolumeRequest;
import pillar.api.agent.v1.UnexportVolumeRequest;
import pillar.api.fencing.FencingToken;
import pillar.api.value.LifecycleUid;
import pillar.api.value.Nqn;

/**
 * What each agent call costs on the real kernel, next to the bare equivalent done in the same run:
 * CreateVolume, ExportVolume, AllowInitiator, ExpandVolume, UnexportVolume and DeleteVolume over real
 * gRPC to the agent process, for an LVM linear LV, an LVM thin LV and a ZFS zvol, against the same
 * lvcreate/zfs command and the same configfs mkdirs, writes and links done directly
 * ({@link BareTarget}). Agent and bare runs alternate, {@value #DEFAULT_REPS} of each (or
 * {@code PILLAR_TIMING_REPS}); the table shows the medians and their ratio. It asserts that every call
 * did its job, never how long it took: the figures are for reading (TCG varies 2x with host load).
 * A benchmark, not a test of the tier: {@code dev/bench --group 2} runs it in the VM
 * ({@code dev/kernel-it --class AgentCallTimingVmBench}) and prints its table.
 */
class AgentCallTimingVmBench {
    private static final int DEFAULT_REPS = 3;
    private static final long MIB = 1L << 20;
    private static final String VG = "pillartimevg";
    private static final String POOL = "pillartimepool";
    private static final String HOST = "nqn.2014-08.org.nvmexpress:uuid:3f1e2d4c-5b6a-4798-8a9b-0c1d2e3f4a5b";
    private static final String BARE_HOST = "nqn.2014-08.org.example:bare-host";
    private static final List<String> CALLS = List.of("CreateVolume", "ExportVolume", "AllowInitiator", "ExpandVolume",
            "UnexportVolume", "DeleteVolume");
    private static final Map<String, String> BARE_STEPS = Map.of(
            "CreateVolume", "lvcreate | zfs create + find its /dev/zdN",
            "ExportVolume", "4 mkdir-or-write steps + 6 writes + 1 link",
            "AllowInitiator", "mkdir + link",
            "ExpandVolume", "lvextend | zfs set volsize, + revalidate_size",
            "UnexportVolume", "unlink, write, 2 rmdir, unlink, 3 rmdir",
            "DeleteVolume", "lvremove | zfs destroy");
    private static final List<String> BACKENDS = List.of("linear", "thin", "zfs");

    @TempDir
    Path dir;

    /** "backend call" -> milliseconds of each run. */
    private final Map<String, List<Long>> agentMs = new LinkedHashMap<>();
    private final Map<String, List<Long>> bareMs = new LinkedHashMap<>();
    private final BareTarget bare = new BareTarget(CONFIGFS, "9001", "127.0.0.1", 4431);
    private AgentProcess agent;
    private Path lvmLoop;
    private Path zfsLoop;

    @BeforeAll
    static void requireVm() {
        VmBed.requireVm(true);
    }

    @Test
    void eachAgentCallNextToItsBareEquivalent() throws Exception {
        lvmLoop = VmBed.loopDevice(dir, "pv", 1024 * MIB);
        VmBed.volumeGroup(VG, lvmLoop, "256m");
        zfsLoop = VmBed.loopDevice(dir, "zpool", 512 * MIB);
        VmBed.zpool(POOL, zfsLoop);
        Path config = AgentProcess.writeConfig(dir.resolve("agent.yaml"), 19501, 19811, dir.resolve("state"), List.of(),
                "{name: linear, type: lvm, volume-group: " + VG + "}",
                "{name: thin, type: lvm-thin, volume-group: " + VG + ", thin-pool: pool0}",
                "{name: zfs, type: zfs, pool: " + POOL + ", parent-dataset: k8s}");
        agent = new AgentProcess(dir, 19501, 19811);
        Duration startup = agent.start(config);

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
        printTable(reps, startup);
    }

    private void viaAgent(String backend, int rep) throws Exception {
        String id = "pvc-" + backend + "-" + rep;
        pillar.api.agent.v1.FencingToken token = FencingToken.of(LifecycleUid.random(), 1).toProto();
        Nqn nqn = Nqn.of("nqn.2024-06.io.pillar-csi:" + id);
        Path subsystem = CONFIGFS.resolve("nvmet/subsystems").resolve(nqn.value());

        Path device = Path.of(timed(agentMs, backend, "CreateVolume", () -> agent.stub().createVolume(CreateVolumeRequest
                .newBuilder().setToken(token).setVolumeId(id).setBackend(backend).setSizeBytes(64 * MIB).build()))
                .getVolume().getDevicePath());
        assertThat(size(device)).isEqualTo(64 * MIB);
        timed(agentMs, backend, "ExportVolume", () -> agent.stub().exportVolume(ExportVolumeRequest.newBuilder()
                .setToken(token).setVolumeId(id).setBackend(backend)
                .setExport(ExportSpec.newBuilder().setBindAddress("127.0.0.1").setPort(4430).setAclEnabled(true)).build()));
        assertThat(Files.readString(subsystem.resolve("namespaces/1/device_path")).strip()).isEqualTo(device.toString());
        assertThat(Files.readString(subsystem.resolve("namespaces/1/enable")).strip()).isEqualTo("1");
        timed(agentMs, backend, "AllowInitiator", () -> agent.stub().allowInitiator(AllowInitiatorRequest.newBuilder()
                .setToken(token).setVolumeId(id).setHostNqn(HOST).build()));
        assertThat(subsystem.resolve("allowed_hosts").resolve(HOST)).exists();
        long grown = timed(agentMs, backend, "ExpandVolume", () -> agent.stub().expandVolume(ExpandVolumeRequest.newBuilder()
                .setToken(token).setVolumeId(id).setBackend(backend).setRequiredBytes(128 * MIB).build())).getSizeBytes();
        assertThat(grown).isEqualTo(128 * MIB);
        assertThat(size(device)).isEqualTo(128 * MIB);
        timed(agentMs, backend, "UnexportVolume", () -> agent.stub().unexportVolume(UnexportVolumeRequest.newBuilder()
                .setToken(token).setVolumeId(id).build()));
        assertThat(subsystem).doesNotExist();
        timed(agentMs, backend, "DeleteVolume", () -> agent.stub().deleteVolume(DeleteVolumeRequest.newBuilder()
                .setToken(FencingToken.of(LifecycleUid.of(token.getLifecycleUid()), 2).toProto()).setVolumeId(id)
                .setBackend(backend).build()));
        assertGone(backend, id, device);
    }

    private void bare(String backend, int rep) throws Exception {
        String name = "bare-" + backend + "-" + rep;
        String nqn = "nqn.2024-06.io.example:" + name;
        Path device = timed(bareMs, backend, "CreateVolume", () -> switch (backend) {
            case "linear" -> created(VG, name, "lvcreate", "-q", "-y", "-n", name, "-L", "64m", VG);
            case "thin" -> created(VG, name, "lvcreate", "-q", "-y", "-n", name, "-V", "64m", "--thinpool", "pool0", VG);
            default -> {
                run("zfs", "create", "-V", "64M", "-s", "-b", "16K", "-o", "volmode=dev", POOL + "/k8s/" + name);
                yield awaitZvol(POOL + "/k8s/" + name);
            }
        });
        assertThat(size(device)).isEqualTo(64 * MIB);
        timed(bareMs, backend, "ExportVolume", () -> bare.export(nqn, device));
        timed(bareMs, backend, "AllowInitiator", () -> bare.allow(nqn, BARE_HOST));
        timed(bareMs, backend, "ExpandVolume", () -> {
            if (backend.equals("zfs")) {
                run("zfs", "set", "volsize=128M", POOL + "/k8s/" + name);
            } else {
                run("lvextend", "-q", "-L", "128m", VG + "/" + name);
            }
            bare.revalidate(nqn);
        });
        assertThat(size(device)).isEqualTo(128 * MIB);
        timed(bareMs, backend, "UnexportVolume", () -> bare.unexport(nqn, BARE_HOST));
        timed(bareMs, backend, "DeleteVolume", () -> backend.equals("zfs") ? run("zfs", "destroy", POOL + "/k8s/" + name)
                : run("lvremove", "-q", "-f", VG + "/" + name));
        assertGone(backend, name, device);
    }

    private static Path created(String vg, String name, String... lvcreate) {
        run(lvcreate);
        return Path.of("/dev", vg, name);
    }

    /** Without udev: the zd device whose zvol_id names the dataset, once devtmpfs has made it. */
    private static Path awaitZvol(String dataset) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (System.nanoTime() < deadline) {
            for (String zd : VmBed.entries(Path.of("/sys/block"))) {
                Path node = Path.of("/dev", zd);
                if (zd.startsWith("zd") && Files.exists(node) && tryZvolId(node).equals(dataset)) {
                    return node;
                }
            }
            Thread.sleep(20);
        }
        throw new AssertionError("no /dev/zdN for " + dataset);
    }

    private static String tryZvolId(Path node) {
        try {
            return run("/lib/udev/zvol_id", node.toString()).strip();
        } catch (RuntimeException e) {
            return "";
        }
    }

    private static long size(Path device) {
        return Long.parseLong(run("blockdev", "--getsize64", device.toString()).strip());
    }

    private static void assertGone(String backend, String name, Path device) throws Exception {
        if (backend.equals("zfs")) {
            assertThat(run("zfs", "list", "-H", "-o", "name", "-r", POOL + "/k8s")).doesNotContain("/" + name + "\n");
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (Files.exists(device) && tryZvolId(device).equals(POOL + "/k8s/" + name)) {
                assertThat(System.nanoTime()).as("%s still there", device).isLessThan(deadline);
                Thread.sleep(20);
            }
        } else {
            assertThat(device).doesNotExist();
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

    private void printTable(int reps, Duration startup) {
        String p = "[agent-timing] ";
        System.out.println(p + "median of " + reps + " runs each, in ms, in the qemu VM (TCG); agent = the gRPC call as the"
                + " client sees it, bare = the same kernel work done directly; agent start to ready " + startup.toMillis() + " ms");
        System.out.println(p + String.format("%-15s %-7s %7s %7s %6s  %s", "call", "backend", "agent", "bare", "ratio", "bare steps"));
        for (String call : CALLS) {
            for (String backend : BACKENDS) {
                long a = median(agentMs.get(backend + " " + call));
                long b = median(bareMs.get(backend + " " + call));
                System.out.println(p + String.format("%-15s %-7s %7d %7d %5.1fx  %s", call, backend, a, b,
                        (double) a / Math.max(1, b), BARE_STEPS.get(call)));
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
        for (String subsystem : VmBed.entries(CONFIGFS.resolve("nvmet/subsystems"))) {
            steps.add(() -> new ConfigfsNvmetTarget(CONFIGFS).removeSubsystem(Nqn.of(subsystem)));
        }
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
        System.out.println("[agent-timing] clean-up: " + (problems.isEmpty() ? "nothing left" : problems));
    }
}
