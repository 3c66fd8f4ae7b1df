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
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;

import io.grpc.ManagedChannel;
import io.grpc.StatusRuntimeException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import pillar.api.agent.v1.AgentServiceGrpc;
import pillar.api.agent.v1.AllowInitiatorRequest;
import pillar.api.agent.v1.CopyMode;
import pillar.api.agent.v1.CreateSnapshotRequest;
import pillar.api.agent.v1.CreateVolumeRequest;
import pillar.api.agent.v1.DeleteSnapshotRequest;
import pillar.api.agent.v1.DeleteVolumeRequest;
import pillar.api.agent.v1.DenyInitiatorRequest;
import pillar.api.agent.v1.ExportProtocol;
import pillar.api.agent.v1.ExportSpec;
import pillar.api.agent.v1.ExportVolumeRequest;
import pillar.api.agent.v1.GetCapabilitiesRequest;
import pillar.api.agent.v1.UnexportVolumeRequest;
import pillar.api.agent.v1.VolumeSource;
import pillar.api.context.PublishContext;
import pillar.api.csi.v1.Volume;
import pillar.api.csi.v1.VolumeCapability;
import pillar.api.fencing.FencingToken;
import pillar.api.value.LifecycleUid;

/**
 * ReadWriteMany over NFS on the real kernel (qemu VM, dev/kernel-it; docs/nfs.md): a ZFS pool on a
 * loop device, the real pillar-agent process with a zfs-dataset backend beside the sandbox's zfs
 * backend (mutual TLS, as the sandbox configures it), real nfsd and rpc.mountd ({@link NfsdBed}), and
 * three node identities a, b and c, each a network namespace with its own address and NFS client
 * identifier running the real pillar-node with its own state directory and CSI socket. The agent is
 * driven over its gRPC API as the controller drives it, the nodes over their CSI sockets as kubelet
 * does, and every claim is checked from outside, through the mounts:
 * <ol>
 *   <li>a and b (both allowed) each read what the other wrote and fsynced, and another volume's create
 *       and delete leave their exports as they are (docs/nfs.md fact 11), and so do a snapshot of their
 *       volume, an independent restore of it, a linked clone of the volume and their deletes (after each
 *       call a and b exchange new files; the restore holds the snapshot-time files, read on the server);</li>
 *   <li>c (not allowed) cannot stage, and nothing it mounted shows the data; allowed read-only (exportfs lists it
 *       {@code ro}), c stages and reads, but its write fails (EROFS or EACCES) and never reaches the server while a
 *       writes; b's access changed to read-only fails its live mount's next write, changed back lets it write;</li>
 *   <li>b denied: its next read and write fail (EACCES: no export is left to it), or block while its client is
 *       refused its lease (docs/nfs.md fact 13), and the write never reaches the server, while a reads and writes
 *       on; a file b read before, rewritten by a, never shows b the new content (a delegation may
 *       serve b its cached copy: docs/nfs.md fact 12);</li>
 *   <li>the agent SIGKILLed in c's deny between {@code exportfs -u} and the expiry (the test writes c's record
 *       note and runs the exportfs -u), every export wiped, the agent restarted: its records export to a again
 *       ({@code exportfs -v}), the nfsd clients c had before are gone from /proc/fs/nfsd/clients (its start-up
 *       expired them: docs/nfs.md fact 14) and the note is dropped, a reads what it wrote before and writes
 *       again; c is unstaged and denied;</li>
 *   <li>unpublished, unstaged and deleted: no dataset, no export, no NFS mount is left.</li>
 * </ol>
 * Prints each step's time (the class's budget is 3 minutes under emulation).
 */
class NfsRwxKernelIT {
    private static final long MIB = 1L << 20;
    private static final String BACKEND = "nfs";
    private static final String VOLUME = "pvc-rwx-1";
    private static final String SNAPSHOT = "snapshot-rwx-1";
    /** How long a denied node's I/O is given to fail before it counts as blocked (docs/nfs.md fact 13). */
    private static final Duration CUT_WAIT = Duration.ofSeconds(10);
    private static final Duration START_DEADLINE = Duration.ofMinutes(10);
    private static final List<String> NODES = List.of("a", "b", "c");
    private static final int FIRST_NODE_HEALTH = 19821;

    @TempDir
    Path dir;

    private final LifecycleUid life = LifecycleUid.random();
    private long generation;
    /** How many times {@link #keepsTheExports} had a and b exchange files: names each exchange's files. */
    private int exchanges;
    private final long classStart = System.nanoTime();
    private final List<String> times = new ArrayList<>();

    /** One node identity's process, CSI client, publish context and paths for the volume. */
    private record Node(String name, NfsdBed.NodeNet net, WorkloadProcess process, KubeletNode csi, Map<String, String> context,
                        Path staging, Path target) {
    }

    @Test
    void threeNodesShareOneDatasetTheFenceHoldsAndTheAgentReappliesItsExport() throws Exception {
        SuiteBed.requireVm();
        SandboxMain.quietLogging();
        Path project = SuiteBed.projectRoot();
        BedLayout layout = BedLayout.under(project, dir, project.resolve("tools/pillar.sandbox/target/kernel-it-logs/NfsRwxKernelIT"),
                BedLayout.Ports.VM);
        Files.createDirectories(layout.logs());
        List<AutoCloseable> closing = new ArrayList<>();
        StoragePools pools = step("ZFS pool on a loop device", () -> StoragePools.zfsOnly(layout.work().resolve("pools")));
        closing.add(pools);
        ManagedChannel channel = null;
        Map<String, Node> nodes = new LinkedHashMap<>();
        WorkloadProcess agent = null;
        boolean passed = false;
        try {
            NfsdBed nfsd = step("nfsd (grace 10 s), rpc.mountd, three node namespaces", () ->
                    NfsdBed.start(project, layout.logs(), NODES));
            closing.add(nfsd);
            pools.created().forEach(l -> System.out.println("  " + l));
            nfsd.made().forEach(l -> System.out.println("  " + l));

            // the nodes first: their JVMs start while the agent's certificates are made
            List<WorkloadProcess> processes = new ArrayList<>();
            step("three pillar-nodes launched, each in its namespace", () -> {
                for (int i = 0; i < NODES.size(); i++) {
                    String name = NODES.get(i);
                    Path home = dir.resolve("node-" + name);
                    Path socket = home.resolve("kubelet/plugins/pillar.csi.io/csi.sock");
                    Workload workload = Workloads.node("node-" + name, "nfs-node-" + name, FIRST_NODE_HEALTH + i, socket,
                            home.resolve("kubelet"), home.resolve("node-state"), home.resolve("etc/nvme/hostnqn"));
                    WorkloadProcess process = WorkloadProcess.startInNetns(workload, name, project, layout.aotCaches(),
                            layout.logs(), () -> Files.exists(socket));
                    processes.add(process);
                    KubeletNode csi = new KubeletNode(socket, home.resolve("kubelet"));
                    closing.add(csi);
                    nodes.put(name, new Node(name, nfsd.node(name), process, csi, new LinkedHashMap<>(),
                            csi.stagingPath(VOLUME, "pv-rwx", false), csi.targetPath("pod-" + name, "pv-rwx", false)));
                }
                return null;
            });
            SandboxPki pki = step("the agent's mTLS certificates (SandboxPki)", () -> SandboxPki.create(layout.tlsDir()));
            List<String> backends = new ArrayList<>(pools.agentBackends());
            backends.add("{name: " + BACKEND + ", type: zfs-dataset, pool: " + StoragePools.ZPOOL + ", parent-dataset: "
                    + NfsdBed.PARENT_NAME + "}");
            Workload agentWorkload = Workloads.agent(layout, backends, Path.of("/sys/kernel/config"), pki);
            agent = WorkloadProcess.start(agentWorkload, project, layout.aotCaches(), layout.logs(), false);
            processes.addFirst(agent);
            closing.addAll(processes); // closed in reverse: the nodes before the agent
            WorkloadProcess agentProcess = agent;
            // made while the JVMs start: loading TLS takes the test's JVM seconds under emulation
            channel = step("the agent's gRPC channel (mTLS, the controller's certificate)", () -> pki.agentChannel("127.0.0.1", layout.ports().agent()));
            step("pillar-agent and the three pillar-nodes ready (real JVMs)", () -> {
                Startup.await(processes, START_DEADLINE, System.out);
                return null;
            });
            AgentServiceGrpc.AgentServiceBlockingStub stub = AgentServiceGrpc.newBlockingStub(channel);
            assertThat(step("first agent call (GetCapabilities)", () -> stub.withDeadlineAfter(5, TimeUnit.MINUTES)
                    .getCapabilities(GetCapabilitiesRequest.getDefaultInstance())).getExportProtocolsList())
                    .as("the agent's protocols (NfsPresence found nfsd and mountd)").contains(ExportProtocol.EXPORT_PROTOCOL_NFS);

            // --- the volume, exported to a and b -----------------------------------------------------
            String exportPath = step("CreateVolume, ExportVolume (nfs), AllowInitiator a and b", () -> {
                calls(stub).createVolume(CreateVolumeRequest.newBuilder().setToken(token()).setVolumeId(VOLUME).setBackend(BACKEND)
                        .setSizeBytes(256 * MIB).build());
                String path = calls(stub).exportVolume(ExportVolumeRequest.newBuilder().setToken(token()).setVolumeId(VOLUME)
                        .setBackend(BACKEND).setExport(ExportSpec.newBuilder().setBindAddress(nfsd.node("a").serverAddress())
                                .setProtocol(ExportProtocol.EXPORT_PROTOCOL_NFS)).build()).getExportPath();
                for (String name : List.of("a", "b")) {
                    calls(stub).allowInitiator(AllowInitiatorRequest.newBuilder().setToken(token()).setVolumeId(VOLUME)
                            .setClientAddress(nfsd.node(name).clientAddress()).build());
                }
                return path;
            });
            Path dataset = NfsdBed.TOP.resolve(VOLUME);
            assertThat(exportPath).as("the export path (the dataset's mountpoint)").isEqualTo(dataset.toString());
            assertThat(nfsd.run("zfs", "get", "-H", "-o", "value", "refquota", NfsdBed.PARENT + "/" + VOLUME).strip())
                    .isEqualTo("256M");
            String listed = nfsd.exports();
            System.out.println("  exportfs -v:\n" + listed.indent(4).stripTrailing());
            assertThat(listed).contains(nfsd.node("a").clientAddress()).contains(nfsd.node("b").clientAddress())
                    .doesNotContain(nfsd.node("c").clientAddress()).doesNotContain("crossmnt");
            for (Node n : nodes.values()) {
                n.context().putAll(Map.of(PublishContext.PROTOCOL, PublishContext.PROTOCOL_NFS,
                        PublishContext.NFS_SERVER, n.net().serverAddress(), PublishContext.NFS_EXPORT, exportPath,
                        PublishContext.NFS_CLIENT_ADDRESS, n.net().clientAddress()));
            }

            // --- 1. a and b read each other's writes -----------------------------------------------------
            Node a = nodes.get("a");
            Node b = nodes.get("b");
            Node c = nodes.get("c");
            step("NodeStageVolume and NodePublishVolume on a and b (at once)", () -> {
                List<FutureTask<Void>> both = new ArrayList<>();
                for (Node n : List.of(a, b)) {
                    FutureTask<Void> task = new FutureTask<>(() -> {
                        n.csi().stage(volume(), n.context(), n.staging(), rwx());
                        n.csi().publish(volume(), n.context(), n.staging(), n.target(), rwx(), false);
                        return null;
                    });
                    Thread.ofPlatform().daemon().name("stage-" + n.name()).start(task);
                    both.add(task);
                }
                for (FutureTask<Void> task : both) {
                    try {
                        task.get(CsiController.CALL_DEADLINE_SECONDS * 2, TimeUnit.SECONDS);
                    } catch (ExecutionException e) {
                        throw e.getCause() instanceof Exception cause ? cause : e;
                    }
                }
                return null;
            });
            for (Node n : List.of(a, b)) {
                String mount = mountOf(n.staging());
                System.out.println("  node " + n.name() + " staged: " + mount);
                assertThat(mount).contains(" nfs4 ").contains(n.net().serverAddress() + ":" + exportPath)
                        .contains("clientaddr=" + n.net().clientAddress()).contains("vers=4.2").contains("hard");
            }
            step("a writes and fsyncs, b reads it; b writes and fsyncs, a reads it", () -> {
                BoundedIo.writeSynced(a.target().resolve("from-a"), "written by node a");
                assertThat(BoundedIo.read(b.target().resolve("from-a"))).isEqualTo("written by node a");
                BoundedIo.writeSynced(b.target().resolve("from-b"), "written by node b");
                assertThat(BoundedIo.read(a.target().resolve("from-b"))).isEqualTo("written by node b");
                return null;
            });
            assertThat(Files.readString(dataset.resolve("from-b"))).as("on the server, in the dataset").isEqualTo("written by node b");

            // --- zfs's own mounting runs exportfs -ra (docs/nfs.md fact 11): another volume's create and delete keep the exports
            String before = nfsd.exports();
            step("a second NFS volume created and deleted while a and b use the first", () -> {
                calls(stub).createVolume(CreateVolumeRequest.newBuilder().setToken(token()).setVolumeId(VOLUME + "-other")
                        .setBackend(BACKEND).setSizeBytes(64 * MIB).build());
                assertThat(nfsd.exports()).as("the exports after another dataset's create").isEqualTo(before);
                assertThat(BoundedIo.read(a.target().resolve("from-b"))).isEqualTo("written by node b");
                calls(stub).deleteVolume(DeleteVolumeRequest.newBuilder().setToken(token()).setVolumeId(VOLUME + "-other")
                        .setBackend(BACKEND).build());
                assertThat(nfsd.exports()).as("the exports after another dataset's delete").isEqualTo(before);
                assertThat(BoundedIo.read(b.target().resolve("from-a"))).isEqualTo("written by node a");
                return null;
            });

            // --- and so must a snapshot of the first volume, a restore of it and a clone of the volume (fact 11): made with
            // canmount=noauto, recv -u and rename -u, unmounted before destroy; after each call the same exports, and a and b
            // still exchange new files over them (a file never opened: no cache or delegation can answer for the server).
            // An independent restore and a linked clone run between them every command the four source and mode pairs run
            // (zfs clone -o canmount=noauto, a passage snapshot destroyed with -d, send | recv -u, rename -u, set canmount=on,
            // mount.zfs): a linked restore and an independent clone would add no other command, only 25-35 s under
            // emulation (all four pairs and a clone hidden for its snapshot kept the exports in runs of 2026-12-06)
            pillar.api.agent.v1.FencingToken snapshotToken = FencingToken.of(LifecycleUid.random(), 1).toProto();
            step("CreateSnapshot of the first volume while a and b use it", () -> {
                keepsTheExports(nfsd, before, a, b, "CreateSnapshot " + SNAPSHOT, () -> calls(stub).createSnapshot(
                        CreateSnapshotRequest.newBuilder().setToken(snapshotToken).setSnapshotId(SNAPSHOT).setBackend(BACKEND)
                                .setSourceVolumeId(VOLUME).build()));
                return null;
            });
            Map<String, VolumeSource> copies = new LinkedHashMap<>();
            copies.put(VOLUME + "-restore", VolumeSource.newBuilder().setSnapshotId(SNAPSHOT).setMode(CopyMode.COPY_MODE_INDEPENDENT)
                    .build());
            copies.put(VOLUME + "-clone", VolumeSource.newBuilder().setVolumeId(VOLUME).setMode(CopyMode.COPY_MODE_LINKED).build());
            step("an independent restore of the snapshot and a linked clone of the first volume while a and b use it", () -> {
                for (Map.Entry<String, VolumeSource> copy : copies.entrySet()) {
                    String path = keepsTheExports(nfsd, before, a, b, "CreateVolume " + copy.getKey(), () -> calls(stub).createVolume(
                            CreateVolumeRequest.newBuilder().setToken(token()).setVolumeId(copy.getKey()).setBackend(BACKEND)
                                    .setSizeBytes(256 * MIB).setSource(copy.getValue()).build()).getVolume().getMountPath());
                    assertThat(path).as(copy.getKey() + "'s mount path").isEqualTo(NfsdBed.TOP.resolve(copy.getKey()).toString());
                }
                return null;
            });
            // on the server, in each dataset's mountpoint: the restore holds the snapshot-time files and none written since,
            // the clone also those written since (the first exchange after the snapshot)
            for (String copy : copies.keySet()) {
                Path mounted = NfsdBed.TOP.resolve(copy);
                assertThat(Files.readString(mounted.resolve("from-a"))).as(copy + ": from-a").isEqualTo("written by node a");
                assertThat(Files.readString(mounted.resolve("from-b"))).as(copy + ": from-b").isEqualTo("written by node b");
                if (copies.get(copy).hasSnapshotId()) {
                    assertThat(mounted.resolve("from-a-1")).as(copy + ": a file written after the snapshot").doesNotExist();
                } else {
                    assertThat(Files.readString(mounted.resolve("from-a-1"))).as(copy + ": a file written before the clone")
                            .isEqualTo("a, after CreateSnapshot " + SNAPSHOT);
                }
            }
            step("the restore, the clone and the snapshot deleted while a and b use the first volume", () -> {
                for (String copy : copies.keySet()) {
                    keepsTheExports(nfsd, before, a, b, "DeleteVolume " + copy, () -> calls(stub).deleteVolume(
                            DeleteVolumeRequest.newBuilder().setToken(token()).setVolumeId(copy).setBackend(BACKEND).build()));
                }
                keepsTheExports(nfsd, before, a, b, "DeleteSnapshot " + SNAPSHOT, () -> calls(stub).deleteSnapshot(
                        DeleteSnapshotRequest.newBuilder().setToken(snapshotToken).setSnapshotId(SNAPSHOT).setBackend(BACKEND).build()));
                return null;
            });
            assertThat(nfsd.run("zfs", "list", "-H", "-r", "-t", "all", "-o", "name", NfsdBed.PARENT).strip().lines().toList())
                    .as("datasets and snapshots left (the clone's passage snapshot included)")
                    .containsExactly(NfsdBed.PARENT, NfsdBed.PARENT + "/" + VOLUME);

            // --- 2. c is not allowed --------------------------------------------------------------------------
            StatusRuntimeException refused = step("NodeStageVolume on c (not allowed) fails", () -> {
                try {
                    c.csi().stage(volume(), c.context(), c.staging(), rwx());
                    return null;
                } catch (StatusRuntimeException e) {
                    return e;
                }
            });
            assertThat(refused).as("node c's NodeStageVolume (no export for " + c.net().clientAddress() + ")").isNotNull();
            System.out.println("  node c: " + refused.getStatus());
            assertThat(nfsMountsUnder(dir.resolve("node-c"))).as("the NFS mounts left under node c's directories").isEmpty();
            try (var listing = Files.list(c.staging())) {
                assertThat(listing.map(p -> p.getFileName().toString()).toList()).as("node c's staging directory")
                        .doesNotContain("from-a", "from-b");
            }

            // --- 2b. c allowed read-only: it mounts (read-write, as the node asks) and reads, nfsd refuses its writes;
            // b's access changed to read-only and back applies to its live mount (exportfs flushes nfsd's export cache)
            step("AllowInitiator c read-only: c stages and reads, its write fails while a writes", () -> {
                calls(stub).allowInitiator(AllowInitiatorRequest.newBuilder().setToken(token()).setVolumeId(VOLUME)
                        .setClientAddress(c.net().clientAddress()).setReadOnly(true).build());
                c.csi().stage(volume(), c.context(), c.staging(), rwx());
                c.csi().publish(volume(), c.context(), c.staging(), c.target(), rwx(), false);
                assertThat(BoundedIo.read(c.target().resolve("from-a"))).isEqualTo("written by node a");
                assertThat(BoundedIo.refusedWrite(c.target().resolve("from-c"), "must not land", CUT_WAIT)).as("c's write")
                        .startsWith("fails").containsAnyOf("Read-only file system", "Permission denied");
                BoundedIo.writeSynced(a.target().resolve("a-beside-ro-c"), "a writes beside c");
                assertThat(BoundedIo.read(c.target().resolve("a-beside-ro-c"))).isEqualTo("a writes beside c");
                return null;
            });
            assertThat(nfsd.exports().lines().filter(l -> l.contains(c.net().clientAddress() + "(")).toList())
                    .as("c's entry in exportfs -v").singleElement().asString().contains(",ro,").doesNotContain(",rw,");
            assertThat(dataset.resolve("from-c")).as("c's write, on the server").doesNotExist();
            step("b's access changed to read-only: its mount's write fails; changed back: it writes", () -> {
                calls(stub).allowInitiator(AllowInitiatorRequest.newBuilder().setToken(token()).setVolumeId(VOLUME)
                        .setClientAddress(b.net().clientAddress()).setReadOnly(true).build());
                assertThat(BoundedIo.refusedWrite(b.target().resolve("from-b-ro"), "must not land", CUT_WAIT)).as("b's write when ro")
                        .startsWith("fails").containsAnyOf("Read-only file system", "Permission denied");
                calls(stub).allowInitiator(AllowInitiatorRequest.newBuilder().setToken(token()).setVolumeId(VOLUME)
                        .setClientAddress(b.net().clientAddress()).build());
                BoundedIo.writeSynced(b.target().resolve("from-b-rw-again"), "b writes again");
                return null;
            });
            assertThat(dataset.resolve("from-b-ro")).as("b's write while read-only, on the server").doesNotExist();
            assertThat(Files.readString(dataset.resolve("from-b-rw-again"))).isEqualTo("b writes again");

            // --- 3. b denied: cut at once, a goes on ---------------------------------------------------------
            BoundedIo.writeSynced(a.target().resolve("a-before-deny"), "b never opened this");
            step("DenyInitiator b", () -> calls(stub).denyInitiator(DenyInitiatorRequest.newBuilder().setToken(token())
                    .setVolumeId(VOLUME).setClientAddress(b.net().clientAddress()).build()));
            assertThat(nfsd.exports()).contains(a.net().clientAddress()).doesNotContain(b.net().clientAddress());
            // it fails at once, or blocks while b's client, whose nfsd state the deny expired, is refused its
            // lease (docs/nfs.md fact 13): either way nothing passes
            String readError = step("b's next read (a file it never opened) fails or blocks",
                    () -> BoundedIo.readOutcome(b.target().resolve("a-before-deny"), CUT_WAIT));
            String writeError = step("b's next write fails or blocks", () -> BoundedIo.refusedWrite(
                    b.target().resolve("from-b-after-deny"), "must not land", CUT_WAIT));
            System.out.println("  node b: read -> " + readError + "; write -> " + writeError);
            System.out.println("  nfsd's clients after the deny:\n" + nfsd.clients().indent(4).stripTrailing());
            // with no export left for b, mountd's pseudo-root has none for it either: nfsd refuses b's
            // requests (EACCES); with another export to b it answers ESTALE (docs/nfs.md fact 2)
            assertThat(List.of(readError, writeError)).allSatisfy(e -> assertThat(e).containsAnyOf("Stale file handle",
                    "Input/output error", "Permission denied", "AccessDeniedException", "blocks"));
            assertThat(dataset.resolve("from-b-after-deny")).as("b's write after the deny, on the server").doesNotExist();
            // a file b read before may be delegated to it: b's client then serves it from its cache (measured:
            // still 40 s after the deny, with a 10 s lease), but no new data reaches b
            String cachedRead = step("a rewrites a file b read before; b never sees the new content", () -> {
                BoundedIo.writeSynced(a.target().resolve("from-a"), "rewritten by node a after b's deny");
                String got = BoundedIo.readOutcome(b.target().resolve("from-a"), CUT_WAIT);
                assertThat(got).as("what node b reads of from-a after its deny").doesNotContain("rewritten");
                return got;
            });
            System.out.println("  node b, the file it read before: " + cachedRead);
            step("a reads and writes on", () -> {
                assertThat(BoundedIo.read(a.target().resolve("from-b"))).isEqualTo("written by node b");
                BoundedIo.writeSynced(a.target().resolve("a-after-deny"), "a still writes");
                return null;
            });
            assertThat(Files.readString(dataset.resolve("a-after-deny"))).isEqualTo("a still writes");

            // --- 4. the agent killed in c's deny, between exportfs -u and the expiry; the exports wiped; the agent restarted
            List<String> cClients = NfsdBed.clientIds(c.net().clientAddress());
            assertThat(cClients).as("nfsd's clients of c, which mounts the volume read-only").isNotEmpty();
            step("agent SIGKILLed in c's deny after exportfs -u, exportfs -ua, agent restarted (its records re-apply the export"
                    + " and expire c's state)", () -> {
                agentProcess.kill();
                // what DenyInitiator c had done when the agent died: the record notes c as fencing, exportfs -u ran
                Path record = layout.agentStateDir().resolve("exports").resolve(VOLUME);
                Files.writeString(record, fencing(Files.readString(record), c.net().clientAddress()));
                nfsd.run("exportfs", "-u", c.net().clientAddress() + ":" + exportPath);
                assertThat(NfsdBed.clientIds(c.net().clientAddress())).as("c's nfsd clients, not expired by exportfs -u").containsAll(cClients);
                nfsd.unexportAll();
                assertThat(nfsd.exports()).as("exportfs -v after exportfs -ua").doesNotContain(exportPath);
                agentProcess.restart();
                Startup.await(List.of(agentProcess), START_DEADLINE, System.out);
                return null;
            });
            String reapplied = nfsd.exports();
            System.out.println("  exportfs -v after the restart:\n" + reapplied.indent(4).stripTrailing());
            assertThat(reapplied).contains(exportPath).contains(a.net().clientAddress()).doesNotContain(b.net().clientAddress())
                    .doesNotContain(c.net().clientAddress());
            System.out.println("  nfsd's clients after the restart:\n" + nfsd.clients().indent(4).stripTrailing());
            assertThat(NfsdBed.clientIds(c.net().clientAddress())).as("c's nfsd clients of before, expired by the agent's start-up")
                    .doesNotContainAnyElementsOf(cClients);
            assertThat(Files.readString(layout.agentStateDir().resolve("exports").resolve(VOLUME))).as("the record, its note dropped")
                    .doesNotContain("fencing=");
            step("c unpublished, unstaged and denied", () -> {
                c.csi().unpublish(VOLUME, c.target());
                c.csi().unstage(VOLUME, c.staging());
                calls(stub).denyInitiator(DenyInitiatorRequest.newBuilder().setToken(token()).setVolumeId(VOLUME)
                        .setClientAddress(c.net().clientAddress()).build());
                return null;
            });
            step("a reads what was written before and writes again", () -> {
                assertThat(BoundedIo.read(a.target().resolve("from-a"))).isEqualTo("rewritten by node a after b's deny");
                assertThat(BoundedIo.read(a.target().resolve("from-b"))).isEqualTo("written by node b");
                BoundedIo.writeSynced(a.target().resolve("a-after-restart"), "a writes after the restart");
                return null;
            });
            assertThat(Files.readString(dataset.resolve("a-after-restart"))).isEqualTo("a writes after the restart");

            // --- 5. everything removed --------------------------------------------------------------------------
            step("NodeUnpublishVolume and NodeUnstageVolume on a and b", () -> {
                for (Node n : List.of(a, b)) {
                    n.csi().unpublish(VOLUME, n.target());
                    n.csi().unstage(VOLUME, n.staging());
                }
                return null;
            });
            System.out.println("  nfsd's clients after both unstaged:\n" + nfsd.clients().indent(4).stripTrailing());
            step("DenyInitiator a, UnexportVolume, DeleteVolume", () -> {
                calls(stub).denyInitiator(DenyInitiatorRequest.newBuilder().setToken(token()).setVolumeId(VOLUME)
                        .setClientAddress(a.net().clientAddress()).build());
                calls(stub).unexportVolume(UnexportVolumeRequest.newBuilder().setToken(token()).setVolumeId(VOLUME).build());
                calls(stub).deleteVolume(DeleteVolumeRequest.newBuilder().setToken(token()).setVolumeId(VOLUME).setBackend(BACKEND)
                        .build());
                return null;
            });
            assertThat(nfsMountsUnder(dir)).as("NFS mounts left").isEmpty();
            assertThat(nfsd.exports()).as("exports left").doesNotContain(exportPath);
            assertThat(nfsd.run("zfs", "list", "-H", "-r", "-o", "name", NfsdBed.PARENT).strip()).as("datasets left")
                    .isEqualTo(NfsdBed.PARENT);
            passed = true;
        } finally {
            if (channel != null) {
                channel.shutdownNow();
            }
            if (!passed) {
                logTails(agent, nodes);
            }
            List<String> problems = new ArrayList<>();
            // a failed step may leave hard NFS mounts, which would block every later look at them
            for (String left : nfsMountsUnder(dir).reversed()) {
                String mountPoint = left.split(" ")[4];
                problems.add("left mounted: " + mountPoint);
                try {
                    new pillar.runtime.exec.SystemProcessRunner().run(pillar.runtime.exec.Command.of(Duration.ofSeconds(30),
                            "umount", "-l", "-f", mountPoint));
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
            System.out.println();
            System.out.println("[nfs-rwx] step times:");
            times.forEach(t -> System.out.println("  " + t));
            System.out.printf("[nfs-rwx] the whole class: %.1f s%n", (System.nanoTime() - classStart) / 1e9);
            if (passed) {
                assertThat(problems).as("the clean-up").isEmpty();
            } else if (!problems.isEmpty()) {
                System.out.println("[nfs-rwx] the clean-up also failed: " + problems);
            }
        }
    }

    /**
     * Makes one agent call on another dataset or a snapshot, then checks the export table is {@code before} and a and
     * b still exchange new files over it (files neither opened before, so the server answers, not a cache or a
     * delegation); prints both times.
     */
    private <T> T keepsTheExports(NfsdBed nfsd, String before, Node a, Node b, String call, Callable<T> body) throws Exception {
        long start = System.nanoTime();
        T result = body.call();
        long called = System.nanoTime();
        assertThat(nfsd.exports()).as("the exports after " + call).isEqualTo(before);
        int n = ++exchanges;
        BoundedIo.writeSynced(a.target().resolve("from-a-" + n), "a, after " + call);
        assertThat(BoundedIo.read(b.target().resolve("from-a-" + n))).as("b reads a's file after " + call).isEqualTo("a, after " + call);
        BoundedIo.writeSynced(b.target().resolve("from-b-" + n), "b, after " + call);
        assertThat(BoundedIo.read(a.target().resolve("from-b-" + n))).as("a reads b's file after " + call).isEqualTo("b, after " + call);
        System.out.printf("  %s: %.1f s; the exports unchanged and a and b exchanged files: %.1f s%n", call, (called - start) / 1e9,
                (System.nanoTime() - called) / 1e9);
        return result;
    }

    /** An NFS export record as DenyInitiator writes it before exportfs -u: {@code client} out of the clients, noted fencing. */
    private static String fencing(String record, String client) {
        StringBuilder out = new StringBuilder();
        for (String line : record.lines().toList()) {
            if (line.startsWith("clients=") || line.startsWith("readonly=")) {
                String key = line.substring(0, line.indexOf('=') + 1);
                String rest = String.join(",", java.util.Arrays.stream(line.substring(key.length()).split(","))
                        .filter(v -> !v.isEmpty() && !v.equals(client)).toList());
                if (rest.isEmpty() && key.equals("readonly=")) {
                    continue;
                }
                line = key + rest;
            }
            out.append(line).append('\n');
        }
        return out.append("fencing=").append(client).append('\n').toString();
    }

    /** Runs one step, printing and recording its time; its failure fails the test. */
    private <T> T step(String name, Callable<T> body) throws Exception {
        System.out.println();
        System.out.println("[nfs-rwx] " + name);
        long start = System.nanoTime();
        T result = body.call();
        String line = String.format("%-95s %6.1f s", name, (System.nanoTime() - start) / 1e9);
        times.add(line);
        System.out.printf("[nfs-rwx] %s: done in %.1f s%n", name, (System.nanoTime() - start) / 1e9);
        return result;
    }

    private AgentServiceGrpc.AgentServiceBlockingStub calls(AgentServiceGrpc.AgentServiceBlockingStub stub) {
        return stub.withDeadlineAfter(3, TimeUnit.MINUTES);
    }

    private pillar.api.agent.v1.FencingToken token() {
        return FencingToken.of(life, generation++).toProto();
    }

    private static Volume volume() {
        return Volume.newBuilder().setVolumeId(VOLUME).build();
    }

    /** A filesystem (NFS: no fs_type) that many nodes write: ReadWriteMany. */
    private static VolumeCapability rwx() {
        return VolumeCapability.newBuilder().setMount(VolumeCapability.MountVolume.getDefaultInstance())
                .setAccessMode(VolumeCapability.AccessMode.newBuilder().setMode(VolumeCapability.AccessMode.Mode.MULTI_NODE_MULTI_WRITER))
                .build();
    }

    /** The mountinfo line of the mount at {@code path}, or fails. */
    private static String mountOf(Path path) throws IOException {
        return Files.readAllLines(Path.of("/proc/self/mountinfo")).stream().filter(l -> l.split(" ")[4].equals(path.toString()))
                .reduce((x, y) -> y).orElseThrow(() -> new AssertionError("nothing is mounted at " + path));
    }

    /** The NFS mounts (mountinfo lines) whose mount point is below {@code dir}. */
    private static List<String> nfsMountsUnder(Path dir) throws IOException {
        return Files.readAllLines(Path.of("/proc/self/mountinfo")).stream().filter(l -> l.split(" ")[4].startsWith(dir.toString()))
                .filter(l -> l.contains(" - nfs")).toList();
    }

    private static void logTails(WorkloadProcess agent, Map<String, Node> nodes) {
        if (agent != null) {
            System.out.println("[nfs-rwx] the agent's log ends:\n" + agent.tail());
        }
        for (Node n : nodes.values()) {
            System.out.println("[nfs-rwx] node " + n.name() + "'s log ends:\n" + n.process().tail());
        }
    }
}
