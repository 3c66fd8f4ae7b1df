package pillar.agent.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import pillar.agent.AgentMain;
import pillar.agent.backend.zfs.FakeZfs;
import pillar.agent.backend.zfs.ZfsDatasetBackend;
import pillar.agent.backend.zfs.ZfsVolumeBackend;
import pillar.agent.config.AgentConfig;
import pillar.agent.config.BackendConfig;
import pillar.agent.configfs.FakeConfigfsTree;
import pillar.agent.nfs.FakeNfsServer;
import pillar.agent.nfs.NfsAccess;
import pillar.agent.nfs.NfsClient;
import pillar.agent.nfs.NfsExport;
import pillar.agent.nfs.NfsFsid;
import pillar.agent.nfs.NfsServerContract;
import pillar.agent.nfs.NfsSquash;
import pillar.agent.nfs.NfsTransport;
import pillar.agent.state.InstallationId;
import pillar.agent.state.StateCheck;
import pillar.api.agent.v1.AgentServiceGrpc;
import pillar.api.agent.v1.AllowInitiatorRequest;
import pillar.api.agent.v1.BackendKind;
import pillar.api.agent.v1.CopyMode;
import pillar.api.agent.v1.CreateSnapshotRequest;
import pillar.api.agent.v1.CreateVolumeRequest;
import pillar.api.agent.v1.DeleteSnapshotRequest;
import pillar.api.agent.v1.DeleteVolumeRequest;
import pillar.api.agent.v1.DenyInitiatorRequest;
import pillar.api.agent.v1.DesiredExport;
import pillar.api.agent.v1.Export;
import pillar.api.agent.v1.ExportProtocol;
import pillar.api.agent.v1.ExportSpec;
import pillar.api.agent.v1.ExportVolumeRequest;
import pillar.api.agent.v1.ExportVolumeResponse;
import pillar.api.agent.v1.GetCapabilitiesRequest;
import pillar.api.agent.v1.GetCapabilitiesResponse;
import pillar.api.agent.v1.GetVolumeHealthRequest;
import pillar.api.agent.v1.GetVolumeHealthResponse;
import pillar.api.agent.v1.ListExportsRequest;
import pillar.api.agent.v1.NfsRootSquash;
import pillar.api.agent.v1.ReconcileRequest;
import pillar.api.agent.v1.ReconcileResponse;
import pillar.api.agent.v1.ListSnapshotsRequest;
import pillar.api.agent.v1.Snapshot;
import pillar.api.agent.v1.UnexportVolumeRequest;
import pillar.api.agent.AgentErrors;
import pillar.api.agent.v1.AgentErrorReason;
import pillar.api.agent.v1.Volume;
import pillar.api.agent.v1.VolumeSource;
import pillar.api.fencing.FencingToken;
import pillar.api.value.LifecycleUid;
import pillar.api.value.VolumeId;
import pillar.runtime.metrics.WorkloadMetrics;
import pillar.runtime.server.WorkloadServer;

/**
 * The NFS side of the agent API over real gRPC: a zfs-dataset backend on the fake zfs and the fake nfsd.
 * ExportVolume with protocol NFS, AllowInitiator/DenyInitiator by client address (a denied node is cut at
 * once), ListExports, GetVolumeHealth's drift, Reconcile, Unexport and Delete, the protocol/backend and
 * host_nqn/client_address mismatches (INVALID_ARGUMENT, nothing changed), fencing, GetCapabilities, and a
 * dataset's snapshot, restore and clone (each restored dataset exported over NFS like any other).
 */
class AgentNfsIT {
    private static final long MIB = 1L << 20;
    private static final String ZVOL_ID = "/lib/udev/zvol_id";
    private static final NfsClient A = NfsClient.parse("a", "10.77.1.2");
    private static final NfsClient B = NfsClient.parse("b", "10.77.2.2");
    private static final Path PVC1 = Path.of("/tank/nfs/pvc-1");

    @TempDir
    Path dir;

    private final LifecycleUid life = LifecycleUid.random();
    private final FakeNfsServer nfs = new FakeNfsServer();
    private FakeZfs zfs;
    private WorkloadServer agent;
    private ManagedChannel channel;
    private AgentServiceGrpc.AgentServiceBlockingStub stub;
    private long generation;

    @BeforeEach
    void start() {
        FakeConfigfsTree configfs = FakeConfigfsTree.create();
        zfs = new FakeZfs("tank", 4096 * MIB, dir.resolve("dev"), dir.resolve("sys"), ZVOL_ID, FakeZfs.Devices.UDEV)
                .withFilesystem("tank/nfs").withFilesystem("tank/k8s");
        BackendConfig shared = new BackendConfig("shared", BackendKind.BACKEND_KIND_ZFS_DATASET, "tank", "nfs");
        BackendConfig block = new BackendConfig("zfs", BackendKind.BACKEND_KIND_ZFS_ZVOL, "tank", "k8s");
        AgentConfig config = new AgentConfig("127.0.0.1", 0, dir.resolve("state"), configfs.root(), Optional.empty(),
                List.of(shared, block), "127.0.0.1", 0);
        StateCheck.Verdict state = AgentMain.checkState(config, configfs.target());
        agent = AgentMain.start(config, Map.of(
                "shared", new ZfsDatasetBackend(shared, zfs, Duration.ofSeconds(5), Duration.ofMillis(200), state.installation()),
                "zfs", new ZfsVolumeBackend(block, zfs, dir.resolve("dev"), dir.resolve("sys"), Path.of(ZVOL_ID), Duration.ofSeconds(5),
                        Duration.ofSeconds(5), state.installation())),
                configfs.target(), state, WorkloadMetrics.create("agent"), nfs);
        channel = Grpc.newChannelBuilderForAddress("127.0.0.1", agent.grpcPort(), InsecureChannelCredentials.create()).build();
        stub = AgentServiceGrpc.newBlockingStub(channel).withDeadlineAfter(60, TimeUnit.SECONDS);
        stub.createVolume(CreateVolumeRequest.newBuilder().setToken(token()).setVolumeId("pvc-1").setBackend("shared")
                .setSizeBytes(64 * MIB).build());
        nfs.directory(PVC1);
    }

    @AfterEach
    void stop() throws InterruptedException {
        channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
        agent.close();
    }

    private pillar.api.agent.v1.FencingToken token() {
        return FencingToken.of(life, generation++).toProto();
    }

    private ExportVolumeResponse exportNfs() {
        return stub.exportVolume(ExportVolumeRequest.newBuilder().setToken(token()).setVolumeId("pvc-1").setBackend("shared")
                .setExport(ExportSpec.newBuilder().setBindAddress("10.0.0.5").setProtocol(ExportProtocol.EXPORT_PROTOCOL_NFS)).build());
    }

    private void allow(NfsClient client) {
        stub.allowInitiator(AllowInitiatorRequest.newBuilder().setToken(token()).setVolumeId("pvc-1").setClientAddress(client.text()).build());
    }

    private static void assertCode(Status.Code code, String fragment, Runnable call) {
        assertThatThrownBy(call::run).isInstanceOfSatisfying(StatusRuntimeException.class,
                e -> assertThat(e.getStatus().getCode()).as(e.getStatus().toString()).isEqualTo(code)).hasMessageContaining(fragment);
    }

    @Test
    void anNfsExportServesEachAllowedClientAndADeniedOneIsCutAtOnce() {
        ExportVolumeResponse exported = exportNfs();

        assertThat(exported.getExportPath()).isEqualTo(PVC1.toString());
        assertThat(exported.getAddress()).isEqualTo("10.0.0.5");
        assertThat(exported.getPort()).isEqualTo(2049);
        assertThat(exported.getSubsystemNqn()).isEmpty();
        assertThat(exportNfs()).isEqualTo(exported);
        allow(A);
        allow(B);
        allow(B);
        String fsid = NfsFsid.of(VolumeId.of("pvc-1")).text();
        assertThat(nfs.exports()).containsExactlyInAnyOrder(new NfsExport(PVC1, A, fsid), new NfsExport(PVC1, B, fsid));
        NfsServerContract.Mount a = nfs.mount(A, PVC1);
        NfsServerContract.Mount b = nfs.mount(B, PVC1);
        b.write("f", "by-b");

        stub.denyInitiator(DenyInitiatorRequest.newBuilder().setToken(token()).setVolumeId("pvc-1").setClientAddress(B.text()).build());

        assertThatThrownBy(() -> b.read("f")).isInstanceOfSatisfying(NfsServerContract.AccessException.class,
                e -> assertThat(e.errno).isEqualTo("ESTALE"));
        assertThat(a.read("f")).isEqualTo("by-b");
        Export listed = stub.listExports(ListExportsRequest.getDefaultInstance()).getExports(0);
        assertThat(listed.getExportPath()).isEqualTo(PVC1.toString());
        assertThat(listed.getAllowedHostsList()).containsExactly(A.text());
        assertThat(listed.getExport().getProtocol()).isEqualTo(ExportProtocol.EXPORT_PROTOCOL_NFS);
        assertThat(listed.getDriftList()).isEmpty();
    }

    @Test
    void aDeniedClientsStateIsReleasedAndAStuckReleaseStaysNotedUntilTheNextDenyReleasesIt() throws Exception {
        exportNfs();
        allow(A);
        allow(B);
        nfs.mount(A, PVC1).write("f", "by-a");
        nfs.mount(B, PVC1).write("g", "by-b");
        Path record = dir.resolve("state/exports/pvc-1");
        nfs.hangReleases(true);

        stub.denyInitiator(DenyInitiatorRequest.newBuilder().setToken(token()).setVolumeId("pvc-1").setClientAddress(B.text()).build());

        assertThat(java.nio.file.Files.readString(record)).contains("clients=" + A.text() + "\n").contains("fencing=" + B.text() + "\n");
        assertThat(nfs.holdsState(B, PVC1)).isTrue();
        nfs.hangReleases(false);
        // the export is gone already: the deny retries the release all the same
        stub.denyInitiator(DenyInitiatorRequest.newBuilder().setToken(token()).setVolumeId("pvc-1").setClientAddress(B.text()).build());

        assertThat(nfs.holdsState(B, PVC1)).isFalse();
        assertThat(nfs.holdsState(A, PVC1)).isTrue();
        assertThat(java.nio.file.Files.readString(record)).doesNotContain("fencing=");
        allow(B);
        nfs.mount(B, PVC1).write("h", "by-b again");
    }

    @Test
    void aReadOnlyAllowExportsThatClientRoDurablyAnotherAllowChangesItAndAReconcileKeepsIt() throws Exception {
        exportNfs();
        allow(A);
        stub.allowInitiator(AllowInitiatorRequest.newBuilder().setToken(token()).setVolumeId("pvc-1").setClientAddress(B.text())
                .setReadOnly(true).build());
        String fsid = NfsFsid.of(VolumeId.of("pvc-1")).text();

        assertThat(nfs.exports()).containsExactlyInAnyOrder(new NfsExport(PVC1, A, fsid, NfsAccess.READ_WRITE),
                new NfsExport(PVC1, B, fsid, NfsAccess.READ_ONLY));
        assertThat(java.nio.file.Files.readString(dir.resolve("state/exports/pvc-1"))).contains("readonly=" + B.text() + "\n");
        NfsServerContract.Mount a = nfs.mount(A, PVC1);
        NfsServerContract.Mount b = nfs.mount(B, PVC1);
        a.write("f", "by-a");
        assertThat(b.read("f")).isEqualTo("by-a");
        assertThatThrownBy(() -> b.write("g", "must-not-land")).isInstanceOfSatisfying(NfsServerContract.AccessException.class,
                e -> assertThat(e.errno).isEqualTo("EROFS"));

        // a revocation (Reconcile narrowing the clients) never widens the client it keeps
        DesiredExport desired = DesiredExport.newBuilder().setBackend("shared")
                .setExport(ExportSpec.newBuilder().setBindAddress("10.0.0.5").setProtocol(ExportProtocol.EXPORT_PROTOCOL_NFS))
                .addAllowedHosts(B.text()).build();
        stub.reconcile(ReconcileRequest.newBuilder().setToken(token()).setVolumeId("pvc-1").setDesired(desired).build());
        assertThat(nfs.exports()).containsExactly(new NfsExport(PVC1, B, fsid, NfsAccess.READ_ONLY));

        allow(B);
        assertThat(nfs.exports()).containsExactly(new NfsExport(PVC1, B, fsid, NfsAccess.READ_WRITE));
        b.write("g", "by-b");
        assertThat(java.nio.file.Files.readString(dir.resolve("state/exports/pvc-1"))).doesNotContain("readonly=");
        assertThat(stub.listExports(ListExportsRequest.getDefaultInstance()).getExports(0).getDriftList()).isEmpty();
    }

    @Test
    void readOnlyWithAHostNqnIsInvalidAndChangesNothing() {
        assertCode(Status.Code.INVALID_ARGUMENT, "read_only", () -> stub.allowInitiator(AllowInitiatorRequest.newBuilder().setToken(token())
                .setVolumeId("pvc-1").setHostNqn("nqn.2014-08.org.nvmexpress:uuid:x").setReadOnly(true).build()));
    }

    @Test
    void volumeHealthReportsTheDriftBetweenTheRecordAndNfsd() {
        exportNfs();
        allow(A);
        GetVolumeHealthRequest health = GetVolumeHealthRequest.newBuilder().setVolumeId("pvc-1").setBackend("shared").build();
        assertThat(stub.getVolumeHealth(health).getExportDriftList()).isEmpty();

        nfs.export(PVC1, B, NfsFsid.of(VolumeId.of("pvc-1")));
        nfs.unexport(PVC1, A);
        GetVolumeHealthResponse drifted = stub.getVolumeHealth(health);

        assertThat(drifted.getExportRecorded()).isTrue();
        assertThat(drifted.getVolumePresent()).isTrue();
        assertThat(drifted.getExportDriftList()).containsExactly("client 10.77.1.2 is not exported /tank/nfs/pvc-1",
                "client 10.77.2.2 is exported /tank/nfs/pvc-1 but not allowed");
    }

    @Test
    void mismatchedProtocolsBackendsAndAddressesAreInvalidAndChangeNothing() {
        stub.createVolume(CreateVolumeRequest.newBuilder().setToken(FencingToken.of(LifecycleUid.random(), 0).toProto()).setVolumeId("pvc-b")
                .setBackend("zfs").setSizeBytes(64 * MIB).build());
        exportNfs();
        int changes = nfs.changes();

        assertCode(Status.Code.INVALID_ARGUMENT, "zfs-dataset", () -> stub.exportVolume(ExportVolumeRequest.newBuilder().setVolumeId("pvc-b")
                .setBackend("zfs").setExport(ExportSpec.newBuilder().setBindAddress("10.0.0.5").setProtocol(ExportProtocol.EXPORT_PROTOCOL_NFS))
                .build()));
        assertCode(Status.Code.INVALID_ARGUMENT, "protocol NFS", () -> stub.exportVolume(ExportVolumeRequest.newBuilder().setToken(token())
                .setVolumeId("pvc-1").setBackend("shared").setExport(ExportSpec.newBuilder().setBindAddress("10.0.0.5").setPort(4420)).build()));
        assertCode(Status.Code.INVALID_ARGUMENT, "exactly one", () -> stub.allowInitiator(AllowInitiatorRequest.newBuilder().setToken(token())
                .setVolumeId("pvc-1").setClientAddress(A.text()).setHostNqn("nqn.2014-08.org.nvmexpress:uuid:x").build()));
        assertCode(Status.Code.INVALID_ARGUMENT, "exactly one", () -> stub.denyInitiator(DenyInitiatorRequest.newBuilder().setToken(token())
                .setVolumeId("pvc-1").build()));
        assertCode(Status.Code.INVALID_ARGUMENT, "client_address", () -> stub.allowInitiator(AllowInitiatorRequest.newBuilder()
                .setToken(token()).setVolumeId("pvc-1").setHostNqn("nqn.2014-08.org.nvmexpress:uuid:x").build()));
        for (String bad : List.of("10.77.0.0/16", "*", "node-a", "10.77.1.2 ")) {
            assertCode(Status.Code.INVALID_ARGUMENT, "client_address", () -> stub.allowInitiator(AllowInitiatorRequest.newBuilder()
                    .setToken(token()).setVolumeId("pvc-1").setClientAddress(bad).build()));
        }
        assertCode(Status.Code.INVALID_ARGUMENT, "export.bind_address", () -> stub.exportVolume(ExportVolumeRequest.newBuilder()
                .setToken(token()).setVolumeId("pvc-1").setBackend("shared").setExport(ExportSpec.newBuilder().setBindAddress("server")
                        .setProtocol(ExportProtocol.EXPORT_PROTOCOL_NFS)).build()));
        assertCode(Status.Code.INVALID_ARGUMENT, "export.address_family", () -> stub.exportVolume(ExportVolumeRequest.newBuilder()
                .setToken(token()).setVolumeId("pvc-1").setBackend("shared").setExport(ExportSpec.newBuilder().setBindAddress("10.0.0.5")
                        .setAddressFamily(pillar.api.agent.v1.AddressFamily.ADDRESS_FAMILY_IPV6).setProtocol(ExportProtocol.EXPORT_PROTOCOL_NFS))
                .build()));
        assertCode(Status.Code.INVALID_ARGUMENT, "export.port", () -> stub.exportVolume(ExportVolumeRequest.newBuilder()
                .setToken(token()).setVolumeId("pvc-1").setBackend("shared").setExport(ExportSpec.newBuilder().setBindAddress("10.0.0.5")
                        .setPort(4420).setProtocol(ExportProtocol.EXPORT_PROTOCOL_NFS)).build()));
        assertThat(nfs.changes()).isEqualTo(changes);
        assertThat(nfs.exports()).isEmpty();
    }

    @Test
    void staleAndForeignTokensAreRefusedAsForEveryVolumeCall() {
        exportNfs();
        allow(A);
        int changes = nfs.changes();

        assertCode(Status.Code.FAILED_PRECONDITION, "fencing", () -> stub.denyInitiator(DenyInitiatorRequest.newBuilder()
                .setToken(FencingToken.of(life, 0).toProto()).setVolumeId("pvc-1").setClientAddress(A.text()).build()));
        assertCode(Status.Code.FAILED_PRECONDITION, "fencing", () -> stub.allowInitiator(AllowInitiatorRequest.newBuilder()
                .setToken(FencingToken.of(LifecycleUid.random(), 99).toProto()).setVolumeId("pvc-1").setClientAddress(B.text()).build()));
        assertCode(Status.Code.FAILED_PRECONDITION, "fencing", () -> stub.allowInitiator(AllowInitiatorRequest.newBuilder()
                .setVolumeId("pvc-1").setClientAddress(B.text()).build()));

        assertThat(nfs.changes()).isEqualTo(changes);
        assertThat(nfs.exports()).extracting(NfsExport::client).containsExactly(A);
    }

    @Test
    void rootSquashingReachesEveryEntryIsListedAndReconciledAndAnUnknownValueChangesNothing() {
        ExportSpec squashed = ExportSpec.newBuilder().setBindAddress("10.0.0.5").setProtocol(ExportProtocol.EXPORT_PROTOCOL_NFS)
                .setNfsRootSquash(NfsRootSquash.NFS_ROOT_SQUASH_ON).build();
        stub.exportVolume(ExportVolumeRequest.newBuilder().setToken(token()).setVolumeId("pvc-1").setBackend("shared").setExport(squashed).build());
        allow(A);

        assertThat(nfs.exports()).extracting(NfsExport::squash).containsExactly(NfsSquash.ROOT_SQUASH);
        Export listed = stub.listExports(ListExportsRequest.getDefaultInstance()).getExports(0);
        assertThat(listed.getExport().getNfsRootSquash()).isEqualTo(NfsRootSquash.NFS_ROOT_SQUASH_ON);
        assertThat(listed.getDriftList()).isEmpty();
        int changes = nfs.changes();
        assertCode(Status.Code.FAILED_PRECONDITION, "root_squash", () -> exportNfs());
        assertCode(Status.Code.INVALID_ARGUMENT, "export.nfs_root_squash", () -> stub.exportVolume(ExportVolumeRequest.newBuilder()
                .setToken(token()).setVolumeId("pvc-1").setBackend("shared").setExport(squashed.toBuilder().setNfsRootSquashValue(9)).build()));
        assertCode(Status.Code.INVALID_ARGUMENT, "desired.export.nfs_root_squash", () -> stub.reconcile(ReconcileRequest.newBuilder()
                .setToken(token()).setVolumeId("pvc-1").setDesired(DesiredExport.newBuilder().setBackend("shared")
                        .setExport(squashed.toBuilder().setNfsRootSquashValue(9)).addAllowedHosts(A.text())).build()));
        assertCode(Status.Code.INVALID_ARGUMENT, "NFS exports only", () -> stub.exportVolume(ExportVolumeRequest.newBuilder()
                .setToken(token()).setVolumeId("pvc-1").setBackend("zfs").setExport(ExportSpec.newBuilder().setBindAddress("10.0.0.5")
                        .setPort(4420).setNfsRootSquash(NfsRootSquash.NFS_ROOT_SQUASH_ON)).build()));
        assertThat(nfs.changes()).as("nothing changed").isEqualTo(changes);

        ReconcileResponse unsquashed = stub.reconcile(ReconcileRequest.newBuilder().setToken(token()).setVolumeId("pvc-1")
                .setDesired(DesiredExport.newBuilder().setBackend("shared").setExport(squashed.toBuilder()
                        .setNfsRootSquash(NfsRootSquash.NFS_ROOT_SQUASH_OFF)).addAllowedHosts(A.text())).build());

        assertThat(unsquashed.getChangesList()).containsExactly("NFS /tank/nfs/pvc-1 now no_root_squash, was root_squash");
        assertThat(nfs.exports()).extracting(NfsExport::squash).containsExactly(NfsSquash.NO_ROOT_SQUASH);
    }

    @Test
    void tlsRequiredExportsEveryEntryTlsOnlyIsListedAndReconciledAndRefusedWhereTheServerCannot() {
        ExportSpec tls = ExportSpec.newBuilder().setBindAddress("10.0.0.5").setProtocol(ExportProtocol.EXPORT_PROTOCOL_NFS)
                .setTlsRequired(true).build();
        assertThat(stub.getCapabilities(GetCapabilitiesRequest.getDefaultInstance()).getNfsTls()).isTrue();
        stub.exportVolume(ExportVolumeRequest.newBuilder().setToken(token()).setVolumeId("pvc-1").setBackend("shared").setExport(tls).build());
        allow(A);

        assertThat(nfs.exports()).extracting(NfsExport::transport).containsExactly(NfsTransport.TLS);
        assertThatThrownBy(() -> nfs.mount(A, Path.of("/tank/nfs/pvc-1"))).as("a plaintext mount").hasMessage("EPERM");
        Export listed = stub.listExports(ListExportsRequest.getDefaultInstance()).getExports(0);
        assertThat(listed.getExport().getTlsRequired()).isTrue();
        assertThat(listed.getDriftList()).isEmpty();
        assertCode(Status.Code.FAILED_PRECONDITION, "RPC-with-TLS only", () -> exportNfs());

        ReconcileResponse plain = stub.reconcile(ReconcileRequest.newBuilder().setToken(token()).setVolumeId("pvc-1")
                .setDesired(DesiredExport.newBuilder().setBackend("shared").setExport(tls.toBuilder().setTlsRequired(false))
                        .addAllowedHosts(A.text())).build());
        assertThat(plain.getChangesList()).containsExactly("NFS /tank/nfs/pvc-1 now admits any transport, was RPC-with-TLS only");
        assertThat(nfs.exports()).extracting(NfsExport::transport).containsExactly(NfsTransport.ANY);

        nfs.setTlsProblem("kernel 6.1.0-57-amd64 has no RPC-with-TLS in nfsd");
        assertThat(stub.getCapabilities(GetCapabilitiesRequest.getDefaultInstance()).getNfsTls()).isFalse();
        assertThatThrownBy(() -> stub.reconcile(ReconcileRequest.newBuilder().setToken(token()).setVolumeId("pvc-1")
                .setDesired(DesiredExport.newBuilder().setBackend("shared").setExport(tls).addAllowedHosts(A.text())).build()))
                .isInstanceOfSatisfying(StatusRuntimeException.class, e -> {
                    assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.FAILED_PRECONDITION);
                    assertThat(AgentErrors.reasonOf(e)).isEqualTo(AgentErrorReason.AGENT_ERROR_REASON_NFS_TLS_UNSUPPORTED);
                }).hasMessageContaining("6.1.0-57-amd64");
        stub.unexportVolume(UnexportVolumeRequest.newBuilder().setToken(token()).setVolumeId("pvc-1").build());
        assertThatThrownBy(() -> stub.exportVolume(ExportVolumeRequest.newBuilder().setToken(token()).setVolumeId("pvc-1")
                .setBackend("shared").setExport(tls).build())).isInstanceOfSatisfying(StatusRuntimeException.class,
                e -> assertThat(AgentErrors.reasonOf(e)).isEqualTo(AgentErrorReason.AGENT_ERROR_REASON_NFS_TLS_UNSUPPORTED));
        assertThat(nfs.exports()).as("nothing exported").isEmpty();
        assertThat(stub.listExports(ListExportsRequest.getDefaultInstance()).getExportsList()).as("nothing recorded").isEmpty();
    }

    @Test
    void reconcileConvergesToTheDesiredClientsAndAnAbsentDesireUnexports() {
        DesiredExport desired = DesiredExport.newBuilder().setBackend("shared")
                .setExport(ExportSpec.newBuilder().setBindAddress("10.0.0.5").setProtocol(ExportProtocol.EXPORT_PROTOCOL_NFS))
                .addAllowedHosts(A.text()).addAllowedHosts(B.text()).build();

        ReconcileResponse made = stub.reconcile(ReconcileRequest.newBuilder().setToken(token()).setVolumeId("pvc-1").setDesired(desired).build());

        assertThat(made.getChangesList()).containsExactly("exported NFS /tank/nfs/pvc-1 from 10.0.0.5", "allowed 10.77.1.2", "allowed 10.77.2.2");
        assertThat(made.getActual().getAllowedHostsList()).containsExactly(A.text(), B.text());
        ReconcileResponse narrowed = stub.reconcile(ReconcileRequest.newBuilder().setToken(token()).setVolumeId("pvc-1")
                .setDesired(desired.toBuilder().clearAllowedHosts().addAllowedHosts(A.text())).build());
        assertThat(narrowed.getChangesList()).containsExactly("denied 10.77.2.2");
        assertThat(nfs.exports()).extracting(NfsExport::client).containsExactly(A);

        ReconcileResponse gone = stub.reconcile(ReconcileRequest.newBuilder().setToken(token()).setVolumeId("pvc-1").build());

        assertThat(gone.getChangesList()).containsExactly("unexported NFS /tank/nfs/pvc-1 from 10.0.0.5");
        assertThat(gone.hasActual()).isFalse();
        assertThat(nfs.exports()).isEmpty();
    }

    @Test
    void unexportAndDeleteRemoveEveryEntryBeforeTheDatasetGoes() {
        exportNfs();
        allow(A);
        stub.unexportVolume(UnexportVolumeRequest.newBuilder().setToken(token()).setVolumeId("pvc-1").build());
        assertThat(nfs.exports()).isEmpty();
        assertThat(stub.listExports(ListExportsRequest.getDefaultInstance()).getExportsList()).isEmpty();

        exportNfs();
        allow(B);
        stub.deleteVolume(DeleteVolumeRequest.newBuilder().setToken(token()).setVolumeId("pvc-1").setBackend("shared").build());

        assertThat(nfs.exports()).isEmpty();
        assertThat(zfs.exists("tank/nfs/pvc-1")).isFalse();
    }

    @Test
    void capabilitiesListNfsWhileTheServerServesAndExplainWhenItDoesNot() {
        GetCapabilitiesResponse serving = stub.getCapabilities(GetCapabilitiesRequest.getDefaultInstance());
        assertThat(serving.getExportProtocolsList()).containsExactly(ExportProtocol.EXPORT_PROTOCOL_NVMEOF_TCP,
                ExportProtocol.EXPORT_PROTOCOL_NFS);
        assertThat(serving.getProtocolsList()).as("the deprecated field, for the previous controller").contains("nvmeof-tcp", "nfs");
        assertThat(serving.getBackendsList()).allMatch(b -> !b.hasProblem());
        assertThat(serving.getNfsRootSquash()).as("it honours ExportSpec.nfs_root_squash").isTrue();
        assertThat(serving.getApiLevel()).as("the agent API level it speaks").isEqualTo(pillar.api.agent.AgentApiLevel.CURRENT);
        assertThat(serving.getOldestControllerLevel()).isEqualTo(pillar.api.agent.AgentApiLevel.OLDEST_CONTROLLER);

        nfs.setProblem("rpc.mountd does not run");
        GetCapabilitiesResponse missing = stub.getCapabilities(GetCapabilitiesRequest.getDefaultInstance());

        assertThat(missing.getExportProtocolsList()).containsExactly(ExportProtocol.EXPORT_PROTOCOL_NVMEOF_TCP);
        assertThat(missing.getProtocolsList()).containsExactly("nvmeof-tcp");
        assertThat(missing.getBackendsList()).filteredOn(b -> b.getName().equals("shared")).singleElement()
                .satisfies(b -> assertThat(b.getProblem().getReason()).isEqualTo("NfsServerMissing"))
                .satisfies(b -> assertThat(b.getProblem().getMessage()).contains("rpc.mountd does not run"));
        assertThat(missing.getBackendsList()).filteredOn(b -> b.getName().equals("zfs")).singleElement()
                .satisfies(b -> assertThat(b.hasProblem()).isFalse());
    }

    @Test
    void aDatasetIsSnapshottedRestoredAndClonedAndTheRestoreIsExportedOverNfs() {
        assertThat(stub.getCapabilities(GetCapabilitiesRequest.getDefaultInstance()).getBackendsList())
                .filteredOn(b -> b.getName().equals("shared")).singleElement().satisfies(b -> assertThat(b.getSnapshots()).isTrue());
        pillar.api.agent.v1.FencingToken snapshotToken = FencingToken.of(LifecycleUid.random(), 1).toProto();
        Snapshot taken = stub.createSnapshot(CreateSnapshotRequest.newBuilder().setToken(snapshotToken).setSnapshotId("snapshot-1")
                .setBackend("shared").setSourceVolumeId("pvc-1").build()).getSnapshot();
        assertThat(taken.getSizeBytes()).isEqualTo(64 * MIB);
        assertThat(stub.listSnapshots(ListSnapshotsRequest.newBuilder().setBackend("shared").build()).getSnapshotsList()).containsExactly(taken);

        pillar.api.agent.v1.FencingToken restoredToken = FencingToken.of(LifecycleUid.random(), 0).toProto();
        CreateVolumeRequest restore = CreateVolumeRequest.newBuilder().setToken(restoredToken).setVolumeId("pvc-restored")
                .setBackend("shared").setSizeBytes(128 * MIB).setSource(VolumeSource.newBuilder().setSnapshotId("snapshot-1")).build();
        Volume restored = stub.createVolume(restore).getVolume();
        assertThat(restored.getSizeBytes()).isEqualTo(128 * MIB);
        assertThat(restored.getMountPath()).isEqualTo("/tank/nfs/pvc-restored");
        assertThat(stub.createVolume(restore).getVolume()).isEqualTo(restored);
        assertCode(Status.Code.OUT_OF_RANGE, "smaller than its source", () -> stub.createVolume(restore.toBuilder()
                .setVolumeId("pvc-small").setSizeBytes(32 * MIB).build()));
        Volume clone = stub.createVolume(restore.toBuilder().setVolumeId("pvc-clone").setSizeBytes(64 * MIB)
                .setSource(VolumeSource.newBuilder().setVolumeId("pvc-1").setMode(CopyMode.COPY_MODE_INDEPENDENT)).build()).getVolume();
        assertThat(clone.getMountPath()).isEqualTo("/tank/nfs/pvc-clone");

        nfs.directory(Path.of(restored.getMountPath()));
        ExportVolumeResponse exported = stub.exportVolume(ExportVolumeRequest.newBuilder().setToken(restoredToken)
                .setVolumeId("pvc-restored").setBackend("shared").setExport(ExportSpec.newBuilder().setBindAddress("10.0.0.5")
                        .setProtocol(ExportProtocol.EXPORT_PROTOCOL_NFS)).build());
        assertThat(exported.getExportPath()).isEqualTo("/tank/nfs/pvc-restored");
        stub.unexportVolume(UnexportVolumeRequest.newBuilder().setToken(restoredToken).setVolumeId("pvc-restored").build());

        // the source first (hidden for its snapshot), then the snapshot, then the restore and the clone
        stub.deleteVolume(DeleteVolumeRequest.newBuilder().setToken(token()).setVolumeId("pvc-1").setBackend("shared").build());
        stub.deleteSnapshot(DeleteSnapshotRequest.newBuilder().setToken(snapshotToken).setSnapshotId("snapshot-1").setBackend("shared").build());
        stub.deleteVolume(DeleteVolumeRequest.newBuilder().setToken(restoredToken).setVolumeId("pvc-restored").setBackend("shared").build());
        stub.deleteVolume(DeleteVolumeRequest.newBuilder().setToken(restoredToken).setVolumeId("pvc-clone").setBackend("shared").build());
        assertThat(zfs.below("tank/nfs")).containsExactly("tank/nfs");
    }
}
