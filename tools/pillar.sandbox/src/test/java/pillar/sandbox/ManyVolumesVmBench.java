package pillar.sandbox;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.IntFunction;
import java.util.stream.IntStream;
import java.util.stream.Stream;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import pillar.api.csi.v1.Volume;
import pillar.api.csi.v1.VolumeCapability;
import pillar.runtime.exec.Command;
import pillar.runtime.exec.SystemProcessRunner;

/**
 * Fifty volumes at once on the real kernel (qemu VM), on LVM thin and on ZFS, each with ext4. Through
 * the real workloads' CSI sockets, {@value #IN_FLIGHT} in flight (a fixed pool of threads, as the
 * sidecars' and kubelet's workers would be): CreateVolume, ControllerPublishVolume, NodeStageVolume,
 * NodePublishVolume ("up"); 8 MiB of data per volume written, then, once all are written, read back
 * past the page cache and checked against its checksum ("data"); NodeUnpublish, NodeUnstage,
 * ControllerUnpublish, DeleteVolume ("down"). Then the same kernel work by the commands directly
 * ({@link BareVolume}), at the same concurrency. Prints each phase's wall time, pillar-csi's beside
 * the bare commands', and checks after each side that nothing is left: no LV or zvol, no nvmet
 * subsystem, no NVMe controller, no mount (configfs, sysfs, mountinfo, {@code lvs}, {@code zfs list});
 * it fails at the end with whatever any side left. It asserts that every step did its job, never how
 * long it took. A benchmark, not in the CI tier:
 * {@code dev/kernel-it --class ManyVolumesVmBench --timeout 2400}, or {@code dev/bench --group 2};
 * {@code PILLAR_BENCH_BACKENDS=zfs} (comma-separated: lvm-thin, zfs) plays only those. CreateVolume and
 * DeleteVolume are retried on the codes external-provisioner retries, each retry printed and counted.
 * Every 30 s it prints
 * the guest's memory ({@link GuestMemory}): the pools live in it, so a stall shows whether it was memory.
 */
class ManyVolumesVmBench {
    private static final int VOLUMES = 50;
    private static final int IN_FLIGHT = 10;
    /** 50 of them fit the pools without overcommitting (thin pool 1.5 GiB; a zvol reserves its size). */
    private static final long BYTES = 24L << 20;
    private static final List<Backend> BACKENDS = backends(System.getenv("PILLAR_BENCH_BACKENDS"));
    private static final List<String> PHASES = List.of("up", "data", "down");
    private static final String P = "[many-volumes] ";
    private static final int ATTEMPTS = 5;
    /** The codes external-provisioner retries a call on (not the final ones such as INVALID_ARGUMENT). */
    private static final java.util.Set<io.grpc.Status.Code> RETRIED = java.util.EnumSet.of(io.grpc.Status.Code.INTERNAL,
            io.grpc.Status.Code.UNAVAILABLE, io.grpc.Status.Code.ABORTED, io.grpc.Status.Code.DEADLINE_EXCEEDED,
            io.grpc.Status.Code.RESOURCE_EXHAUSTED);
    /** Retries per call through pillar-csi, as the sidecars would have made them. */
    private static final Map<String, java.util.concurrent.atomic.AtomicInteger> RETRIES = new ConcurrentHashMap<>();

    @TempDir
    Path dir;

    private final Map<String, Double> pillarSeconds = new LinkedHashMap<>();
    private final Map<String, Double> bareSeconds = new LinkedHashMap<>();
    private final List<String> problems = new ArrayList<>();

    /** One volume on either side: made ready for a pod, its pod's path, undone as far as it got. */
    interface Subject {
        void up() throws Exception;

        Path target();

        void down() throws Exception;
    }

    private interface Task<T> {
        void run(T item) throws Exception;
    }

    @Test
    void fiftyVolumesTenInFlightThroughPillarCsiAndByTheBareCommands() throws Exception {
        SuiteBed.requireVm();
        SandboxMain.quietLogging();
        Path project = SuiteBed.projectRoot();
        BedLayout layout = BedLayout.under(project, dir, project.resolve("tools/pillar.sandbox/target/kernel-it-logs")
                .resolve(getClass().getSimpleName()), BedLayout.Ports.VM);
        List<GenericKubernetesResource> quickstart = SandboxObjects.load(project.resolve("examples/sandbox/quickstart.yaml"));
        String agent = SandboxObjects.nameOf(quickstart, "PillarAgent");
        String protocol = SandboxObjects.nameOf(quickstart, "PillarProtocol");
        List<GenericKubernetesResource> objects = new ArrayList<>(quickstart.stream()
                .filter(o -> o.getKind().equals("PillarAgent") || o.getKind().equals("PillarProtocol")).toList());
        for (Backend backend : BACKENDS) {
            objects.add(SandboxObjects.store(agent, backend));
            objects.add(SandboxObjects.storageClass(backend, "ext4", protocol));
        }
        Path bareDir = dir.resolve("bare");
        List<Path> mountRoots = List.of(layout.kubeletDir(), bareDir);
        try (GuestMemory memory = GuestMemory.printEvery(Duration.ofSeconds(30), P, System.out);
             Bed bed = Bed.start(layout, true, objects, System.out)) {
            KernelObjects before = KernelObjects.read(mountRoots);
            System.out.println(P + "the kernel's objects before the first volume: " + before.objects());
            checkNothingLeft("before the first volume", before, mountRoots);
            try {
                playBoth(bed, before, mountRoots, bareDir);
                assertThat(problems).as("what the volumes left in the kernel after their down phase").isEmpty();
            } finally {
                System.out.println();
                MetricsExcerpt.print(layout.ports().healthPorts(), System.out);
                printTable();
            }
        }
    }

    /** Each backend through pillar-csi, then by the bare commands, each side checked to leave nothing. */
    private void playBoth(Bed bed, KernelObjects before, List<Path> mountRoots, Path bareDir) throws Exception {
        for (Backend backend : BACKENDS) {
            Map<String, String> parameters = bed.storageClasses().get(SandboxObjects.storageClassName(backend, "ext4"))
                    .getParameters();
            play(backend, "pillar-csi", pillarSeconds, volumes(i -> new PillarVolume(bed, parameters)));
            checkNothingLeft(backend + " after pillar-csi's down phase", before, mountRoots);
            BareVolume.Zvols zvols = new BareVolume.Zvols();
            BareVolume.openPort();
            play(backend, "bare", bareSeconds, volumes(i -> new BareVolume(backend, "bare-" + backend + "-" + i, BYTES,
                    bareDir, zvols)));
            BareVolume.closePort();
            checkNothingLeft(backend + " after the bare down phase", before, mountRoots);
        }
    }

    /** The backends {@code PILLAR_BENCH_BACKENDS} names (comma-separated), by default LVM thin and ZFS. */
    private static List<Backend> backends(String names) {
        if (names == null || names.isBlank()) {
            return List.of(Backend.LVM_THIN, Backend.ZFS);
        }
        List<Backend> chosen = Stream.of(names.split(",")).map(String::strip).map(Backend::of).toList();
        if (!List.of(Backend.LVM_THIN, Backend.ZFS).containsAll(chosen)) {
            throw new IllegalArgumentException("PILLAR_BENCH_BACKENDS must name lvm-thin or zfs, is '" + names + "'");
        }
        return chosen;
    }

    private static List<Subject> volumes(IntFunction<Subject> make) {
        return IntStream.range(0, VOLUMES).mapToObj(make).toList();
    }

    /**
     * Up, data and down for every volume, each phase {@value #IN_FLIGHT} in flight and timed into
     * {@code seconds}; down runs even after a failure (undoing what up did), then the first failure is thrown.
     */
    private static void play(Backend backend, String side, Map<String, Double> seconds, List<Subject> volumes) {
        AssertionError failure = null;
        try {
            seconds.put(backend + " up", inFlight(backend, side, "up", volumes, Subject::up));
            seconds.put(backend + " data", data(backend, side, volumes));
        } catch (AssertionError e) {
            failure = e;
        }
        try {
            seconds.put(backend + " down", inFlight(backend, side, "down", volumes, Subject::down));
        } catch (AssertionError e) {
            if (failure == null) {
                failure = e;
            } else {
                failure.addSuppressed(e);
            }
        }
        if (failure != null) {
            throw failure;
        }
    }

    /** Each volume's data written, the page cache dropped, then each read back and checked; the wall time in s. */
    private static double data(Backend backend, String side, List<Subject> volumes) {
        long start = System.nanoTime();
        Map<Subject, String> written = new ConcurrentHashMap<>();
        inFlight(backend, side, "data written", volumes, v -> written.put(v, VolumeData.write(v.target(), false,
                volumes.indexOf(v))));
        try {
            Lifecycle.dropCaches();
        } catch (IOException e) {
            throw new AssertionError("cannot drop the page cache", e);
        }
        inFlight(backend, side, "data read back", volumes, v -> assertThat(VolumeData.read(v.target(), false))
                .as("the checksum of volume " + volumes.indexOf(v) + "'s data read back").isEqualTo(written.get(v)));
        return seconds(start);
    }

    /**
     * Runs {@code task} on every volume, {@value #IN_FLIGHT} at a time, and prints the wall time; after
     * all ran, fails with each volume's failure (the first as the cause). Returns the wall time in s.
     */
    private static double inFlight(Backend backend, String side, String phase, List<Subject> volumes, Task<Subject> task) {
        ExecutorService pool = Executors.newFixedThreadPool(IN_FLIGHT);
        long start = System.nanoTime();
        List<Throwable> failures = new ArrayList<>();
        try {
            List<Future<Object>> done = volumes.stream().map(v -> pool.submit(() -> {
                task.run(v);
                return null;
            })).toList();
            for (Future<Object> f : done) {
                try {
                    f.get();
                } catch (ExecutionException e) {
                    failures.add(e.getCause());
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            failures.add(e);
        } finally {
            pool.shutdownNow();
        }
        double seconds = seconds(start);
        System.out.printf("%s%s %s %s: %d volumes, %d in flight, %.1f s%s%n", P, backend, side, phase, volumes.size(),
                IN_FLIGHT, seconds, failures.isEmpty() ? "" : ", " + failures.size() + " FAILED: " + failures.getFirst());
        if (!failures.isEmpty()) {
            AssertionError error = new AssertionError(backend + " " + side + " " + phase + ": " + failures.size() + " of "
                    + volumes.size() + " volumes failed, the first with " + failures.getFirst(), failures.getFirst());
            failures.stream().skip(1).forEach(error::addSuppressed);
            throw error;
        }
        return seconds;
    }

    private static double seconds(long start) {
        return (System.nanoTime() - start) / 1e9;
    }

    /**
     * Records what a side left (the test fails with it at the end): first any object
     * {@link KernelObjects} reads (nvmet subsystems, NVMe/TCP controllers and namespaces, LVs, zvol
     * devices, mounts below {@code mountRoots}) that was not there before the first volume, given 10 s
     * to settle (a destroyed zvol's device goes asynchronously); then any LV but the thin pool, any
     * dataset below the ZFS parent, an NVMe device mounted anywhere. NVMe/TCP controllers left are
     * disconnected first: I/O to a controller whose target is gone hangs, and so would {@code lvs},
     * which reads every block device; and the next side must not count them again.
     */
    private void checkNothingLeft(String when, KernelObjects before, List<Path> mountRoots) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        List<String> objects = KernelObjects.read(mountRoots).changesSince(before);
        while (!objects.isEmpty() && System.nanoTime() < deadline) {
            Thread.sleep(100);
            objects = KernelObjects.read(mountRoots).changesSince(before);
        }
        List<String> found = new ArrayList<>(objects);
        for (Path controller : KernelCleanup.list(Path.of("/sys/class/nvme"))) {
            if (KernelCleanup.read(controller.resolve("transport")).equals("tcp")) {
                Files.writeString(controller.resolve("delete_controller"), "1");
                System.out.println(P + "disconnected the left " + controller.getFileName() + " to go on");
            }
        }
        run("lvs", "--noheadings", "-o", "lv_name", StoragePools.VG).lines().map(String::strip)
                .filter(lv -> !lv.isEmpty() && !lv.equals(StoragePools.THIN_POOL)).forEach(lv -> found.add("LV " + lv));
        String parent = StoragePools.ZPOOL + "/" + StoragePools.ZFS_PARENT;
        run("zfs", "list", "-H", "-t", "all", "-o", "name", "-r", parent).lines()
                .filter(ds -> !ds.equals(parent)).forEach(ds -> found.add("dataset " + ds));
        Files.readAllLines(Path.of("/proc/self/mountinfo")).stream().filter(line -> line.contains(" /dev/nvme"))
                .forEach(line -> found.add("mount " + line));
        System.out.println(P + "left " + when + ": " + (found.isEmpty() ? "nothing" : found));
        if (!found.isEmpty()) {
            problems.add(when + ": " + found);
        }
    }

    private static String run(String... argv) {
        return new SystemProcessRunner().run(new Command(List.of(argv), Duration.ofMinutes(2))).stdout();
    }

    private void printTable() {
        System.out.println();
        System.out.println(P + VOLUMES + " volumes of " + (BYTES >> 20) + " MiB with ext4, " + IN_FLIGHT + " in flight, in"
                + " the qemu VM (TCG); wall time of each phase in s; pillar-csi = through the workloads' CSI sockets,"
                + " bare = the same kernel work by the commands directly");
        System.out.println(P + String.format("%-8s %-5s %11s %7s %6s", "backend", "phase", "pillar-csi", "bare", "ratio"));
        for (Backend backend : BACKENDS) {
            for (String phase : PHASES) {
                Double pillar = pillarSeconds.get(backend + " " + phase);
                Double bare = bareSeconds.get(backend + " " + phase);
                System.out.println(P + String.format("%-8s %-5s %11s %7s %6s", backend, phase, format("%.1f", pillar),
                        format("%.1f", bare), pillar == null || bare == null ? "-" : format("%.1fx", pillar / bare)));
            }
        }
        System.out.println(P + "retries through pillar-csi, as external-provisioner makes them: "
                + (RETRIES.isEmpty() ? "none" : new java.util.TreeMap<>(RETRIES)));
        System.out.println(P + "up: CreateVolume, ControllerPublishVolume, NodeStageVolume, NodePublishVolume | lvcreate"
                + " or zfs create, nvmet subsystem + namespace + allowed host + port link, connect, mkfs.ext4, mount,"
                + " bind mount");
        System.out.println(P + "data: 8 MiB written and fsynced per volume, the page cache dropped, each read back and"
                + " its SHA-256 checked");
        System.out.println(P + "down: NodeUnpublishVolume, NodeUnstageVolume, ControllerUnpublishVolume, DeleteVolume |"
                + " umount twice, disconnect, nvmet entries removed, lvremove or zfs destroy");
    }

    private static String format(String format, Double value) {
        return value == null ? "-" : String.format(format, value);
    }

    /** A volume through pillar-csi: as external-provisioner, external-attacher and kubelet call it. */
    private static final class PillarVolume implements Subject {
        private static final VolumeCapability EXT4 = Capabilities.readWriteOnce(VolumeMode.EXT4, "ext4");
        private final Bed bed;
        private final Map<String, String> parameters;
        private Volume volume;
        private Attached attached;

        PillarVolume(Bed bed, Map<String, String> parameters) {
            this.bed = bed;
            this.parameters = parameters;
        }

        @Override
        public void up() {
            String pvName = "pvc-" + UUID.randomUUID();
            volume = asTheProvisionerRetries("CreateVolume", () -> bed.controller().create(pvName, BYTES, EXT4,
                    Lifecycle.provisionerParameters(parameters, pvName)));
            attached = Attached.attach(bed.controller(), bed.node(), volume, EXT4, false);
        }

        @Override
        public Path target() {
            return attached.target();
        }

        @Override
        public void down() {
            if (attached != null) {
                attached.detach(bed.controller());
                attached = null;
            }
            if (volume != null) {
                String id = volume.getVolumeId();
                asTheProvisionerRetries("DeleteVolume", () -> {
                    bed.controller().delete(id);
                    return null;
                });
                volume = null;
            }
        }

        /**
         * Calls as external-provisioner does: a call that fails with a code it retries (every code but
         * the final ones) is made again, here at most {@value #ATTEMPTS} times 2 s apart. Each retry is
         * printed with its reason and counted in {@link #RETRIES}, which the table reports.
         */
        private static <T> T asTheProvisionerRetries(String call, java.util.function.Supplier<T> attempt) {
            for (int i = 1; ; i++) {
                try {
                    return attempt.get();
                } catch (io.grpc.StatusRuntimeException e) {
                    if (i == ATTEMPTS || !RETRIED.contains(e.getStatus().getCode())) {
                        throw e;
                    }
                    RETRIES.computeIfAbsent(call, c -> new java.util.concurrent.atomic.AtomicInteger()).incrementAndGet();
                    System.out.println(P + call + " retried (attempt " + (i + 1) + "): " + e.getStatus());
                    try {
                        Thread.sleep(2000);
                    } catch (InterruptedException interrupted) {
                        Thread.currentThread().interrupt();
                        throw e;
                    }
                }
            }
        }
    }
}
