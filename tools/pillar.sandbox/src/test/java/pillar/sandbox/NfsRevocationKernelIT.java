package pillar.sandbox;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import io.grpc.ManagedChannel;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import pillar.api.agent.v1.AgentServiceGrpc;
import pillar.api.agent.v1.AllowInitiatorRequest;
import pillar.api.agent.v1.CreateVolumeRequest;
import pillar.api.agent.v1.DeleteVolumeRequest;
import pillar.api.agent.v1.DenyInitiatorRequest;
import pillar.api.agent.v1.ExportProtocol;
import pillar.api.agent.v1.ExportSpec;
import pillar.api.agent.v1.ExportVolumeRequest;
import pillar.api.agent.v1.UnexportVolumeRequest;
import pillar.api.fencing.FencingToken;
import pillar.api.value.LifecycleUid;
import pillar.runtime.exec.Command;
import pillar.runtime.exec.SystemProcessRunner;

/**
 * A client fenced from one of its two NFS volumes loses its NFSv4 state on that one only (Linux 6.9 and
 * later: {@code unlock_filesystem} revokes per filesystem; the 6.12 tier of dev/test runs it). Node a
 * (a network namespace, its own NFSv4 client) mounts two volumes of the real agent and holds a file open
 * and locked on each; after DenyInitiator of one, nfsd's own table of a's state
 * ({@code /proc/fs/nfsd/clients/<id>/states}) names no file on it (its entries stay, admin-revoked) and keeps
 * the other's open and delegation, a writes new files on the other and fails to write on the fenced one, and
 * the fenced volume, still held open by a, can be deleted (a 6.1 nfsd keeps it busy). What a's client does
 * with the file it held locked on the other volume is printed (docs/nfs.md, "releasing a fenced client's
 * NFSv4 state").
 */
class NfsRevocationKernelIT {
    private static final long MIB = 1L << 20;
    private static final String FENCED = "pvc-revoke-x";
    private static final String KEPT = "pvc-revoke-y";
    private static final Duration START_DEADLINE = Duration.ofMinutes(10);
    private static final Duration IO_WAIT = Duration.ofSeconds(30);

    @TempDir
    Path dir;

    private final LifecycleUid life = LifecycleUid.random();
    private long generation;
    private final SystemProcessRunner runner = new SystemProcessRunner();

    /** A file node a holds open and locked on one volume, and where that volume is mounted. */
    private record Held(Path mount, Path file, FileChannel channel, FileLock lock) {
    }

    @Test
    void aClientFencedFromOneOfItsVolumesLosesItsStateThereAndKeepsItOnTheOther() throws Exception {
        SuiteBed.requireVm();
        String release = Files.readString(Path.of("/proc/sys/kernel/osrelease")).strip();
        assertThat(atLeast(release, 6, 9)).as("kernel %s: nfsd revokes NFSv4 state per filesystem from Linux 6.9 on; this class"
                + " belongs to the 6.12 tier (dev/test KERNEL_6_12_CLASSES)", release).isTrue();
        SandboxMain.quietLogging();
        Path project = SuiteBed.projectRoot();
        BedLayout layout = BedLayout.under(project, dir, project.resolve("tools/pillar.sandbox/target/kernel-it-logs/NfsRevocationKernelIT"),
                BedLayout.Ports.VM);
        Files.createDirectories(layout.logs());
        List<AutoCloseable> closing = new ArrayList<>();
        Map<String, Held> held = new LinkedHashMap<>();
        WorkloadProcess agent = null;
        boolean passed = false;
        try {
            StoragePools pools = StoragePools.zfsOnly(layout.work().resolve("pools"));
            closing.add(pools);
            NfsdBed nfsd = NfsdBed.start(project, layout.logs(), List.of("a"));
            closing.add(nfsd);
            NfsdBed.NodeNet a = nfsd.node("a");
            SandboxPki pki = SandboxPki.create(layout.tlsDir());
            List<String> backends = new ArrayList<>(pools.agentBackends());
            backends.add(NfsdBed.agentBackend());
            agent = WorkloadProcess.start(Workloads.agent(layout, backends, Path.of("/sys/kernel/config"), pki), project,
                    layout.aotCaches(), layout.logs(), false);
            closing.add(agent);
            ManagedChannel channel = pki.agentChannel("127.0.0.1", layout.ports().agent());
            closing.add(channel::shutdownNow);
            Startup.await(List.of(agent), START_DEADLINE, System.out);
            AgentServiceGrpc.AgentServiceBlockingStub stub = AgentServiceGrpc.newBlockingStub(channel);

            for (String volume : List.of(FENCED, KEPT)) {
                calls(stub).createVolume(CreateVolumeRequest.newBuilder().setToken(token()).setVolumeId(volume)
                        .setBackend(NfsdBed.AGENT_BACKEND).setSizeBytes(64 * MIB).build());
                String path = calls(stub).exportVolume(ExportVolumeRequest.newBuilder().setToken(token()).setVolumeId(volume)
                        .setBackend(NfsdBed.AGENT_BACKEND).setExport(ExportSpec.newBuilder().setBindAddress(a.serverAddress())
                                .setProtocol(ExportProtocol.EXPORT_PROTOCOL_NFS)).build()).getExportPath();
                calls(stub).allowInitiator(AllowInitiatorRequest.newBuilder().setToken(token()).setVolumeId(volume)
                        .setClientAddress(a.clientAddress()).build());
                Path mount = dir.resolve("a-" + volume);
                Files.createDirectories(mount);
                // mount(8) without a mount.nfs helper (the VM has none) hands the options to the kernel, which needs addr=
                run("nsenter", "--net=" + a.netns(), "mount", "-t", "nfs4", "-o", "vers=4.2,hard,addr=" + a.serverAddress()
                        + ",clientaddr=" + a.clientAddress(),
                        a.serverAddress() + ":" + path, mount.toString());
                held.put(volume, hold(mount, mount.resolve("held-" + volume)));
            }
            List<String> before = NfsdBed.states(a.clientAddress());
            System.out.println("[revoke] a's nfsd state with a file open and locked on each volume:");
            before.forEach(l -> System.out.println("  " + l));
            System.out.println("[revoke] the server's lock table:\n" + Files.readString(Path.of("/proc/locks")).indent(2).stripTrailing());
            assertThat(on(before, FENCED)).as("a's state on %s", FENCED).isNotEmpty();
            assertThat(on(before, KEPT)).as("a's state on %s", KEPT).isNotEmpty();

            long denyStart = System.nanoTime();
            calls(stub).denyInitiator(DenyInitiatorRequest.newBuilder().setToken(token()).setVolumeId(FENCED)
                    .setClientAddress(a.clientAddress()).build());
            double denied = (System.nanoTime() - denyStart) / 1e9;
            List<String> after = NfsdBed.states(a.clientAddress());
            System.out.printf("[revoke] after DenyInitiator of %s (%.1f s), a's nfsd state:%n", FENCED, denied);
            after.forEach(l -> System.out.println("  " + l));
            System.out.println("[revoke] the server's lock table:\n" + Files.readString(Path.of("/proc/locks")).indent(2).stripTrailing());
            assertThat(on(after, FENCED)).as("a's state on the fenced volume, revoked").isEmpty();
            assertThat(on(after, KEPT)).as("a's state on the other volume, kept as it was").isEqualTo(on(before, KEPT));

            // a's client learns of the revocation (SEQUENCE's SEQ4_STATUS_ADMIN_STATE_REVOKED) and recovers its whole
            // state: measured on 6.12, a file it held open and locked (locally, under its write delegation) on the other
            // volume lost its lock there and its next write failed with EIO; printed, and the volume itself still serves
            Held kept = held.get(KEPT);
            String keptOutcome = BoundedIo.outcome(() -> append(kept, "written after the other volume's fence"), IO_WAIT);
            System.out.println("[revoke] a's write through its open, locked file on " + KEPT + ": " + keptOutcome);
            Path fresh = kept.mount().resolve("written-after-the-fence");
            BoundedIo.writeSynced(fresh, "a writes on after the other volume's fence");
            assertThat(Files.readString(NfsdBed.TOP.resolve(KEPT).resolve(fresh.getFileName())))
                    .as("a's new file on the kept volume, on the server").isEqualTo("a writes on after the other volume's fence");
            Held fenced = held.get(FENCED);
            String fencedOutcome = BoundedIo.outcome(() -> append(fenced, "written after the fence"), IO_WAIT);
            System.out.println("[revoke] a's write through its open, locked file on " + FENCED + ": " + fencedOutcome);
            assertThat(fencedOutcome).as("a's write on the fenced volume").doesNotStartWith("returned");
            assertThat(Files.readString(NfsdBed.TOP.resolve(FENCED).resolve(fenced.file().getFileName())))
                    .as("on the server").doesNotContain("written after the fence");

            // nfsd holds no file of the fenced volume open for a any more: it is deleted while a still has it open
            calls(stub).unexportVolume(UnexportVolumeRequest.newBuilder().setToken(token()).setVolumeId(FENCED).build());
            calls(stub).deleteVolume(DeleteVolumeRequest.newBuilder().setToken(token()).setVolumeId(FENCED)
                    .setBackend(NfsdBed.AGENT_BACKEND).build());
            assertThat(nfsd.run("zfs", "list", "-H", "-o", "name", "-r", NfsdBed.PARENT)).doesNotContain(FENCED);
            System.out.printf("[figures] kernel %s: DenyInitiator of one of a client's two volumes took %.1f s; a's nfsd state"
                            + " went from %d to %d entries on a file, %d on the fenced volume before and 0 after; the fenced"
                            + " volume, still open on a, deleted; the held, locked file on the kept volume: %s%n", release, denied,
                    before.stream().filter(l -> l.contains("filename:")).count(), after.stream().filter(l -> l.contains("filename:"))
                            .count(), on(before, FENCED).size(), keptOutcome);
            passed = true;
        } finally {
            if (!passed && agent != null) {
                System.out.println("[revoke] the agent's log ends:\n" + agent.tail());
            }
            List<String> problems = new ArrayList<>();
            for (Held h : held.values()) {
                String closed = BoundedIo.outcome(() -> {
                    h.channel().close();
                    return "closed";
                }, IO_WAIT);
                System.out.println("[revoke] " + h.file().getFileName() + ": " + closed);
                try {
                    run("umount", "-l", "-f", h.mount().toString());
                } catch (RuntimeException e) {
                    problems.add(e.getMessage());
                }
            }
            for (AutoCloseable c : closing.reversed()) {
                try {
                    c.close();
                } catch (Exception e) {
                    problems.add(e.toString());
                }
            }
            if (passed) {
                assertThat(problems).as("the clean-up").isEmpty();
            } else if (!problems.isEmpty()) {
                System.out.println("[revoke] the clean-up also failed: " + problems);
            }
        }
    }

    /** Opens {@code file} read-write through the mount, writes and fsyncs a line, and takes a POSIX lock on it. */
    private static Held hold(Path mount, Path file) throws Exception {
        return BoundedIo.call("holding " + file, () -> {
            FileChannel channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE);
            Held h = new Held(mount, file, channel, channel.lock());
            append(h, "held by node a\n");
            return h;
        });
    }

    private static Void append(Held h, String text) throws java.io.IOException {
        h.channel().write(ByteBuffer.wrap(text.getBytes(StandardCharsets.UTF_8)), h.channel().size());
        h.channel().force(true);
        return null;
    }

    /**
     * The state lines on {@code volume}'s file (each held file is named after its volume; nfsd writes its path
     * from the filesystem's root: {@code filename: "/held-pvc-revoke-x"}).
     */
    private static List<String> on(List<String> states, String volume) {
        return states.stream().filter(l -> l.contains("filename: \"/held-" + volume + "\"")).toList();
    }

    private static boolean atLeast(String release, int major, int minor) {
        String[] parts = release.split("[.-]");
        int hasMajor = Integer.parseInt(parts[0]);
        int hasMinor = Integer.parseInt(parts[1]);
        return hasMajor > major || (hasMajor == major && hasMinor >= minor);
    }

    private String run(String... argv) {
        return runner.run(new Command(List.of(argv), Duration.ofSeconds(60))).stdout();
    }

    private AgentServiceGrpc.AgentServiceBlockingStub calls(AgentServiceGrpc.AgentServiceBlockingStub stub) {
        return stub.withDeadlineAfter(3, TimeUnit.MINUTES);
    }

    private pillar.api.agent.v1.FencingToken token() {
        return FencingToken.of(life, generation++).toProto();
    }
}
