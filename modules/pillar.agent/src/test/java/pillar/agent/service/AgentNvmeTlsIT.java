package pillar.agent.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static pillar.agent.service.StatusAssertions.assertRefused;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import pillar.agent.configfs.FakeConfigfsTree;
import pillar.api.agent.AgentErrors;
import pillar.api.agent.v1.AgentErrorReason;
import pillar.api.agent.v1.AllowInitiatorRequest;
import pillar.api.agent.v1.DenyInitiatorRequest;
import pillar.api.agent.v1.DesiredExport;
import pillar.api.agent.v1.ExportSpec;
import pillar.api.agent.v1.ExportVolumeRequest;
import pillar.api.agent.v1.GetCapabilitiesRequest;
import pillar.api.agent.v1.ListExportsRequest;
import pillar.api.agent.v1.ReconcileRequest;
import pillar.api.value.Nqn;
import pillar.api.value.TlsPsk;
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
    private static final TlsPsk PSK = TlsPsk.generate(new SecureRandom());
    private static final String IDENTITY = PSK.identity(Nqn.of(HOST), Nqn.of(NQN));

    @TempDir
    Path dir;

    @RegisterExtension
    final CapturedLogs logs = new CapturedLogs();
    private RebootableAgentBed bed;

    @BeforeEach
    void bed() {
        bed = new RebootableAgentBed(dir);
    }

    @AfterEach
    void stop() throws InterruptedException {
        bed.stop();
    }

    private ExportVolumeRequest export(boolean tls) {
        return ExportVolumeRequest.newBuilder().setToken(bed.token()).setVolumeId("pvc-tls").setBackend("fast")
                .setExport(ExportSpec.newBuilder().setBindAddress("127.0.0.1").setPort(4420).setAclEnabled(true)
                        .setTlsRequired(tls)).build();
    }

    private AllowInitiatorRequest allow(String psk) {
        return AllowInitiatorRequest.newBuilder().setToken(bed.token()).setVolumeId("pvc-tls").setHostNqn(HOST).setTlsPsk(psk).build();
    }

    @Test
    void withoutTlsPortsTheCapabilityIsFalseAndATlsExportIsRefusedChangingNothing() {
        bed.start(FakeConfigfsTree.create());
        assertThat(bed.stub().getCapabilities(GetCapabilitiesRequest.getDefaultInstance()).getNvmeTls()).isFalse();
        bed.create("pvc-tls");
        assertThatThrownBy(() -> bed.stub().exportVolume(export(true))).isInstanceOfSatisfying(StatusRuntimeException.class, e -> {
            assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.FAILED_PRECONDITION);
            assertThat(AgentErrors.reasonOf(e)).isEqualTo(AgentErrorReason.AGENT_ERROR_REASON_NVME_TLS_UNSUPPORTED);
            assertThat(e.getStatus().getDescription()).contains("cannot require TLS");
        });
        assertThat(bed.configfs().entries("subsystems")).isEmpty();
        assertThat(bed.stub().listExports(ListExportsRequest.getDefaultInstance()).getExportsList()).isEmpty();
    }

    @Test
    void eachHostsKeyReachesTheKeyringAndThe0600RecordButNoLogAndGoesAtTheDeny() throws IOException {
        bed.start(FakeConfigfsTree.createWithAuth());
        assertThat(bed.stub().getCapabilities(GetCapabilitiesRequest.getDefaultInstance()).getNvmeTls()).isTrue();
        bed.create("pvc-tls");
        bed.stub().exportVolume(export(true));
        assertThat(bed.configfs().entries("ports")).singleElement()
                .satisfies(port -> assertThat(bed.configfs().value("ports/" + port + "/addr_tsas")).contains("tls1.3"));
        assertRefused(Status.Code.INVALID_ARGUMENT, "tls_psk: volume pvc-tls is exported with tls_required",
                () -> bed.stub().allowInitiator(allow("")));
        String malformed = PSK.value().substring(0, 20);
        assertRefused(Status.Code.INVALID_ARGUMENT, "tls_psk", () -> bed.stub().allowInitiator(allow(malformed)));
        assertThat(bed.configfs().entries("subsystems/" + NQN + "/allowed_hosts")).as("nothing changed").isEmpty();
        assertThat(bed.configfs().tlsKeys().identities()).isEmpty();

        bed.stub().allowInitiator(allow(PSK.value()));
        assertThat(bed.configfs().tlsKeys().psk(IDENTITY)).hasValueSatisfying(key -> assertThat(key).isEqualTo(PSK.bytes()));
        assertThat(bed.configfs().entries("subsystems/" + NQN + "/allowed_hosts")).containsExactly(HOST);
        Path record = dir.resolve("state/exports/pvc-tls");
        assertThat(Files.readString(record)).contains(PSK.value());
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(record))).isEqualTo("rw-------");
        var listed = bed.stub().listExports(ListExportsRequest.getDefaultInstance()).getExports(0);
        assertThat(listed.getExport().getTlsRequired()).isTrue();
        assertThat(listed.getDriftList()).isEmpty();
        assertThat(listed.toString()).doesNotContain(PSK.value());

        bed.stub().denyInitiator(DenyInitiatorRequest.newBuilder().setToken(bed.token()).setVolumeId("pvc-tls").setHostNqn(HOST).build());
        assertThat(bed.configfs().tlsKeys().identities()).as("the denied host's key").isEmpty();
        assertThat(Files.readString(record)).doesNotContain(PSK.value());
        assertThat(logs.lines()).isNotEmpty().allSatisfy(line -> assertThat(line).doesNotContain(PSK.value()).doesNotContain(malformed));
    }

    @Test
    void aRebootPutsTheKeysBackFromTheRecord() throws InterruptedException {
        bed.start(FakeConfigfsTree.createWithAuth());
        bed.create("pvc-tls");
        bed.stub().exportVolume(export(true));
        bed.stub().allowInitiator(allow(PSK.value()));
        bed.stop();
        bed.start(FakeConfigfsTree.createWithAuth().addBlockDevice(dir.resolve("dev/vg0/pvc-tls")));
        assertThat(bed.configfs().tlsKeys().psk(IDENTITY)).hasValueSatisfying(key -> assertThat(key).isEqualTo(PSK.bytes()));
        assertThat(bed.configfs().entries("subsystems/" + NQN + "/allowed_hosts")).containsExactly(HOST);
        assertThat(bed.stub().listExports(ListExportsRequest.getDefaultInstance()).getExports(0).getDriftList()).isEmpty();
    }

    @Test
    void aKeyRemovedBehindTheAgentIsDriftNamingTheHostAndAReconcilePutsItBack() {
        bed.start(FakeConfigfsTree.createWithAuth());
        bed.create("pvc-tls");
        bed.stub().exportVolume(export(true));
        bed.stub().allowInitiator(allow(PSK.value()));
        bed.configfs().tlsKeys().remove(IDENTITY);
        assertThat(bed.stub().listExports(ListExportsRequest.getDefaultInstance()).getExports(0).getDriftList())
                .containsExactly("host " + HOST + ": its TLS key is not in the kernel's .nvme keyring");

        bed.stub().reconcile(ReconcileRequest.newBuilder().setToken(bed.token()).setVolumeId("pvc-tls").setDesired(DesiredExport.newBuilder()
                .setBackend("fast").setExport(export(true).getExport()).addAllowedHosts(HOST)).build());
        assertThat(bed.configfs().tlsKeys().psk(IDENTITY)).hasValueSatisfying(key -> assertThat(key).isEqualTo(PSK.bytes()));
        assertThat(bed.stub().listExports(ListExportsRequest.getDefaultInstance()).getExports(0).getDriftList()).isEmpty();
    }

    @Test
    void aTlsExportNeedsAnAclAndAPlaintextExportTakesNoKey() {
        bed.start(FakeConfigfsTree.createWithAuth());
        bed.create("pvc-tls");
        ExportVolumeRequest open = export(true).toBuilder().setExport(export(true).getExport().toBuilder().setAclEnabled(false)).build();
        assertRefused(Status.Code.INVALID_ARGUMENT, "export.tls_required: needs acl_enabled", () -> bed.stub().exportVolume(open));
        assertThat(bed.configfs().entries("subsystems")).isEmpty();
        bed.stub().exportVolume(export(false));
        assertRefused(Status.Code.INVALID_ARGUMENT, "tls_psk: volume pvc-tls is exported without tls_required",
                () -> bed.stub().allowInitiator(allow(PSK.value())));
        assertThat(bed.configfs().tlsKeys().identities()).isEmpty();
    }
}
