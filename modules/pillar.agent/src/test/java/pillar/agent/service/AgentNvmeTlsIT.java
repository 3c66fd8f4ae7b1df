package pillar.agent.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import pillar.agent.backend.lvm.FakeLvm;
import pillar.agent.configfs.FakeConfigfsTree;
import pillar.api.agent.AgentErrors;
import pillar.api.agent.v1.AgentErrorReason;
import pillar.api.agent.v1.AgentServiceGrpc;
import pillar.api.agent.v1.AllowInitiatorRequest;
import pillar.api.agent.v1.CreateVolumeRequest;
import pillar.api.agent.v1.DenyInitiatorRequest;
import pillar.api.agent.v1.DesiredExport;
import pillar.api.agent.v1.ExportSpec;
import pillar.api.agent.v1.ExportVolumeRequest;
import pillar.api.agent.v1.GetCapabilitiesRequest;
import pillar.api.agent.v1.ListExportsRequest;
import pillar.api.agent.v1.ReconcileRequest;
import pillar.api.fencing.FencingToken;
import pillar.api.value.LifecycleUid;
import pillar.api.value.Nqn;
import pillar.api.value.TlsPsk;
import pillar.runtime.server.WorkloadServer;
import pillar.testkit.CapturedLogs;

/**
 * NVMe/TCP TLS through the agent's gRPC API, on the kernel-like fake with and without TLS ports: the
 * capability, the refusals with their exact codes (changing nothing), each host's key in the target's
 * keyring and the 0600 record but in no log line, removed at the deny, put back after a "reboot", and a key
 * gone from the keyring reported as drift and put back by a reconcile.
 */
class AgentNvmeTlsIT {
    private static final String HOST = "nqn.2014-08.org.nvmexpress:uuid:1f9c2a6e-7c1b-4b8e-9a57-3e2d1c0b9a88";
    private static final String NQN = "nqn.2024-06.io.pillar-csi:pvc-tls";
    private static final long MIB = 1L << 20;
    private static final TlsPsk PSK = TlsPsk.generate(new SecureRandom());
    private static final String IDENTITY = PSK.identity(Nqn.of(HOST), Nqn.of(NQN));

    @TempDir
    Path dir;

    private final LifecycleUid lifecycle = LifecycleUid.random();
    @RegisterExtension
    final CapturedLogs logs = new CapturedLogs();
    private FakeLvm lvm;
    private FakeConfigfsTree configfs;
    private WorkloadServer agent;
    private ManagedChannel channel;
    private AgentServiceGrpc.AgentServiceBlockingStub stub;

    @BeforeEach
    void bed() {
        lvm = new FakeLvm("vg0", 1024 * MIB, dir.resolve("dev")).withThinPool("pool0", 512 * MIB);
    }

    private void startAgent(FakeConfigfsTree tree) {
        configfs = tree;
        FakeThinAgent bed = FakeThinAgent.start(dir.resolve("state"), configfs, lvm);
        agent = bed.agent();
        channel = bed.channel();
        stub = bed.stub();
    }

    @AfterEach
    void stop() throws InterruptedException {
        if (channel != null) {
            channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
            agent.close();
            channel = null;
        }
    }

    private pillar.api.agent.v1.FencingToken token() {
        return FencingToken.of(lifecycle, 0).toProto();
    }

    private ExportVolumeRequest export(boolean tls) {
        return ExportVolumeRequest.newBuilder().setToken(token()).setVolumeId("pvc-tls").setBackend("fast")
                .setExport(ExportSpec.newBuilder().setBindAddress("127.0.0.1").setPort(4420).setAclEnabled(true)
                        .setTlsRequired(tls)).build();
    }

    private void create() {
        var volume = stub.createVolume(CreateVolumeRequest.newBuilder().setToken(token()).setVolumeId("pvc-tls")
                .setBackend("fast").setSizeBytes(64 * MIB).build()).getVolume();
        configfs.addBlockDevice(Path.of(volume.getDevicePath()));
    }

    private AllowInitiatorRequest allow(String psk) {
        return AllowInitiatorRequest.newBuilder().setToken(token()).setVolumeId("pvc-tls").setHostNqn(HOST).setTlsPsk(psk).build();
    }

    private static void assertRefused(Status.Code code, String message, Runnable call) {
        assertThatThrownBy(call::run).isInstanceOfSatisfying(StatusRuntimeException.class, e -> {
            assertThat(e.getStatus().getCode()).as(e.getStatus().toString()).isEqualTo(code);
            assertThat(e.getStatus().getDescription()).contains(message);
        });
    }

    @Test
    void withoutTlsPortsTheCapabilityIsFalseAndATlsExportIsRefusedChangingNothing() {
        startAgent(FakeConfigfsTree.create());
        assertThat(stub.getCapabilities(GetCapabilitiesRequest.getDefaultInstance()).getNvmeTls()).isFalse();
        create();
        assertThatThrownBy(() -> stub.exportVolume(export(true))).isInstanceOfSatisfying(StatusRuntimeException.class, e -> {
            assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.FAILED_PRECONDITION);
            assertThat(AgentErrors.reasonOf(e)).isEqualTo(AgentErrorReason.AGENT_ERROR_REASON_NVME_TLS_UNSUPPORTED);
            assertThat(e.getStatus().getDescription()).contains("cannot require TLS");
        });
        assertThat(configfs.entries("subsystems")).isEmpty();
        assertThat(stub.listExports(ListExportsRequest.getDefaultInstance()).getExportsList()).isEmpty();
    }

    @Test
    void eachHostsKeyReachesTheKeyringAndThe0600RecordButNoLogAndGoesAtTheDeny() throws IOException {
        startAgent(FakeConfigfsTree.createWithAuth());
        assertThat(stub.getCapabilities(GetCapabilitiesRequest.getDefaultInstance()).getNvmeTls()).isTrue();
        create();
        stub.exportVolume(export(true));
        assertThat(configfs.entries("ports")).singleElement()
                .satisfies(port -> assertThat(configfs.value("ports/" + port + "/addr_tsas")).contains("tls1.3"));
        assertRefused(Status.Code.INVALID_ARGUMENT, "tls_psk: volume pvc-tls is exported with tls_required",
                () -> stub.allowInitiator(allow("")));
        String malformed = PSK.value().substring(0, 20);
        assertRefused(Status.Code.INVALID_ARGUMENT, "tls_psk", () -> stub.allowInitiator(allow(malformed)));
        assertThat(configfs.entries("subsystems/" + NQN + "/allowed_hosts")).as("nothing changed").isEmpty();
        assertThat(configfs.tlsKeys().identities()).isEmpty();

        stub.allowInitiator(allow(PSK.value()));
        assertThat(configfs.tlsKeys().psk(IDENTITY)).hasValueSatisfying(key -> assertThat(key).isEqualTo(PSK.bytes()));
        assertThat(configfs.entries("subsystems/" + NQN + "/allowed_hosts")).containsExactly(HOST);
        Path record = dir.resolve("state/exports/pvc-tls");
        assertThat(Files.readString(record)).contains(PSK.value());
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(record))).isEqualTo("rw-------");
        var listed = stub.listExports(ListExportsRequest.getDefaultInstance()).getExports(0);
        assertThat(listed.getExport().getTlsRequired()).isTrue();
        assertThat(listed.getDriftList()).isEmpty();
        assertThat(listed.toString()).doesNotContain(PSK.value());

        stub.denyInitiator(DenyInitiatorRequest.newBuilder().setToken(token()).setVolumeId("pvc-tls").setHostNqn(HOST).build());
        assertThat(configfs.tlsKeys().identities()).as("the denied host's key").isEmpty();
        assertThat(Files.readString(record)).doesNotContain(PSK.value());
        assertThat(logs.lines()).isNotEmpty().allSatisfy(line -> assertThat(line).doesNotContain(PSK.value()).doesNotContain(malformed));
    }

    @Test
    void aRebootPutsTheKeysBackFromTheRecord() throws InterruptedException {
        startAgent(FakeConfigfsTree.createWithAuth());
        create();
        stub.exportVolume(export(true));
        stub.allowInitiator(allow(PSK.value()));
        stop();
        startAgent(FakeConfigfsTree.createWithAuth().addBlockDevice(dir.resolve("dev/vg0/pvc-tls")));
        assertThat(configfs.tlsKeys().psk(IDENTITY)).hasValueSatisfying(key -> assertThat(key).isEqualTo(PSK.bytes()));
        assertThat(configfs.entries("subsystems/" + NQN + "/allowed_hosts")).containsExactly(HOST);
        assertThat(stub.listExports(ListExportsRequest.getDefaultInstance()).getExports(0).getDriftList()).isEmpty();
    }

    @Test
    void aKeyRemovedBehindTheAgentIsDriftNamingTheHostAndAReconcilePutsItBack() {
        startAgent(FakeConfigfsTree.createWithAuth());
        create();
        stub.exportVolume(export(true));
        stub.allowInitiator(allow(PSK.value()));
        configfs.tlsKeys().remove(IDENTITY);
        assertThat(stub.listExports(ListExportsRequest.getDefaultInstance()).getExports(0).getDriftList())
                .containsExactly("host " + HOST + ": its TLS key is not in the kernel's .nvme keyring");

        stub.reconcile(ReconcileRequest.newBuilder().setToken(token()).setVolumeId("pvc-tls").setDesired(DesiredExport.newBuilder()
                .setBackend("fast").setExport(export(true).getExport()).addAllowedHosts(HOST)).build());
        assertThat(configfs.tlsKeys().psk(IDENTITY)).hasValueSatisfying(key -> assertThat(key).isEqualTo(PSK.bytes()));
        assertThat(stub.listExports(ListExportsRequest.getDefaultInstance()).getExports(0).getDriftList()).isEmpty();
    }

    @Test
    void aTlsExportNeedsAnAclAndAPlaintextExportTakesNoKey() {
        startAgent(FakeConfigfsTree.createWithAuth());
        create();
        ExportVolumeRequest open = export(true).toBuilder().setExport(export(true).getExport().toBuilder().setAclEnabled(false)).build();
        assertRefused(Status.Code.INVALID_ARGUMENT, "export.tls_required: needs acl_enabled", () -> stub.exportVolume(open));
        assertThat(configfs.entries("subsystems")).isEmpty();
        stub.exportVolume(export(false));
        assertRefused(Status.Code.INVALID_ARGUMENT, "tls_psk: volume pvc-tls is exported without tls_required",
                () -> stub.allowInitiator(allow(PSK.value())));
        assertThat(configfs.tlsKeys().identities()).isEmpty();
    }
}
