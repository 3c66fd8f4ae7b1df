package pillar.agent.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static pillar.agent.service.StatusAssertions.assertRefused;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Optional;

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
import pillar.api.agent.v1.ExportSpec;
import pillar.api.agent.v1.ExportVolumeRequest;
import pillar.api.agent.v1.GetCapabilitiesRequest;
import pillar.api.agent.v1.HostAuth;
import pillar.api.agent.v1.ListExportsRequest;
import pillar.api.value.DhchapSecret;
import pillar.testkit.CapturedLogs;

/**
 * NVMe in-band authentication through the agent's gRPC API, on the kernel-like fake with and without
 * nvmet authentication: the capability, the refusals with their exact codes (changing nothing), keys in
 * the host entry and in the 0600 record but in no log line, drift, rotation and the re-apply after a
 * "reboot".
 */
class AgentAuthIT {
    private static final String HOST = "nqn.2014-08.org.nvmexpress:uuid:0f9c2a6e-7c1b-4b8e-9a57-3e2d1c0b9a88";
    private static final String NQN = "nqn.2024-06.io.pillar-csi:pvc-auth";
    private static final String KEY_1 = DhchapSecret.encode(1, filled(0x51)).value();
    private static final String KEY_2 = DhchapSecret.encode(1, filled(0x52)).value();
    private static final String CTRL = DhchapSecret.encode(1, filled(0x53)).value();

    @TempDir
    Path dir;

    @RegisterExtension
    final CapturedLogs logs = new CapturedLogs();
    private RebootableAgentBed bed;

    private static byte[] filled(int b) {
        byte[] key = new byte[32];
        java.util.Arrays.fill(key, (byte) b);
        return key;
    }

    @BeforeEach
    void bed() {
        bed = new RebootableAgentBed(dir);
    }

    @AfterEach
    void stop() throws InterruptedException {
        bed.stop();
    }

    private ExportVolumeRequest export(boolean authRequired) {
        return ExportVolumeRequest.newBuilder().setToken(bed.token()).setVolumeId("pvc-auth").setBackend("fast")
                .setExport(ExportSpec.newBuilder().setBindAddress("127.0.0.1").setPort(4420).setAclEnabled(true)
                        .setAuthRequired(authRequired)).build();
    }

    private AllowInitiatorRequest allow(HostAuth.Builder auth) {
        AllowInitiatorRequest.Builder request = AllowInitiatorRequest.newBuilder().setToken(bed.token()).setVolumeId("pvc-auth")
                .setHostNqn(HOST);
        if (auth != null) {
            request.setAuth(auth);
        }
        return request.build();
    }

    private static HostAuth.Builder keys(String hostKey) {
        return HostAuth.newBuilder().setHostKey(hostKey);
    }

    private Optional<String> hostKey() {
        return bed.configfs().value("hosts/" + HOST + "/dhchap_key");
    }

    private static void assertNoAuth(Runnable call) {
        assertThatThrownBy(call::run).isInstanceOfSatisfying(StatusRuntimeException.class, e -> {
            assertThat(e.getStatus().getCode()).as(e.getStatus().toString()).isEqualTo(Status.Code.FAILED_PRECONDITION);
            assertThat(AgentErrors.reasonOf(e)).isEqualTo(AgentErrorReason.AGENT_ERROR_REASON_NVME_AUTH_UNSUPPORTED);
        });
    }

    @Test
    void withoutNvmetAuthTheCapabilityIsFalseAndAnAuthExportIsRefusedChangingNothing() {
        bed.start(FakeConfigfsTree.create());
        assertThat(bed.stub().getCapabilities(GetCapabilitiesRequest.getDefaultInstance()).getNvmeAuth()).isFalse();
        bed.create("pvc-auth");
        assertNoAuth(() -> bed.stub().exportVolume(export(true)));
        assertThat(bed.configfs().entries("subsystems")).isEmpty();
        assertThat(bed.stub().listExports(ListExportsRequest.getDefaultInstance()).getExportsList()).isEmpty();

        bed.stub().exportVolume(export(false));
        assertNoAuth(() -> bed.stub().allowInitiator(allow(keys(KEY_1))));
        assertThat(bed.configfs().entries("hosts")).isEmpty();
    }

    @Test
    void keysReachTheHostEntryAndThe0600RecordButNoLogAndRotate() throws IOException {
        bed.start(FakeConfigfsTree.createWithAuth());
        assertThat(bed.stub().getCapabilities(GetCapabilitiesRequest.getDefaultInstance()).getNvmeAuth()).isTrue();
        bed.create("pvc-auth");
        bed.stub().exportVolume(export(true));
        assertRefused(Status.Code.INVALID_ARGUMENT, "auth_required", () -> bed.stub().allowInitiator(allow(null)));
        String damaged = KEY_1.substring(0, 12) + (KEY_1.charAt(12) == 'A' ? 'B' : 'A') + KEY_1.substring(13);
        assertRefused(Status.Code.INVALID_ARGUMENT, "auth.host_key: its CRC-32 does not match",
                () -> bed.stub().allowInitiator(allow(keys(damaged))));
        assertRefused(Status.Code.INVALID_ARGUMENT, "auth.hash", () -> bed.stub().allowInitiator(allow(keys(KEY_1).setHash("md5"))));
        assertThat(bed.configfs().entries("hosts")).as("nothing changed").isEmpty();

        bed.stub().allowInitiator(allow(keys(KEY_1).setControllerKey(CTRL).setDhGroup("ffdhe2048")));
        assertThat(hostKey()).contains(KEY_1);
        assertThat(bed.configfs().value("hosts/" + HOST + "/dhchap_ctrl_key")).contains(CTRL);
        assertThat(bed.configfs().entries("subsystems/" + NQN + "/allowed_hosts")).containsExactly(HOST);
        Path record = dir.resolve("state/exports/pvc-auth");
        assertThat(Files.readString(record)).contains(KEY_1);
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(record))).isEqualTo("rw-------");
        var listed = bed.stub().listExports(ListExportsRequest.getDefaultInstance()).getExports(0);
        assertThat(listed.getExport().getAuthRequired()).isTrue();
        assertThat(listed.getDriftList()).isEmpty();
        assertThat(listed.toString()).doesNotContain(KEY_1).doesNotContain(CTRL);

        // someone else writes another key: drift names the host, never a key
        bed.configfs().target().allowHost(pillar.api.value.Nqn.of(NQN), pillar.api.value.Nqn.of(HOST),
                Optional.of(pillar.agent.configfs.HostAuth.oneWay(DhchapSecret.of("k", KEY_2))));
        assertThat(bed.stub().listExports(ListExportsRequest.getDefaultInstance()).getExports(0).getDriftList())
                .contains("host " + HOST + ": its DH-HMAC-CHAP key differs from the record")
                .allSatisfy(line -> assertThat(line).doesNotContain(KEY_1).doesNotContain(KEY_2));

        // rotation through the API
        bed.stub().allowInitiator(allow(keys(KEY_2)));
        assertThat(hostKey()).contains(KEY_2);
        assertThat(bed.configfs().value("hosts/" + HOST + "/dhchap_ctrl_key")).as("one-way now").contains("");
        assertThat(Files.readString(record)).contains(KEY_2).doesNotContain(KEY_1);
        assertThat(logs.lines()).isNotEmpty().allSatisfy(line -> assertThat(line).doesNotContain(KEY_1)
                .doesNotContain(KEY_2).doesNotContain(CTRL).doesNotContain(damaged));
    }

    @Test
    void aRebootReappliesTheKeysFromTheRecord() throws InterruptedException {
        bed.start(FakeConfigfsTree.createWithAuth());
        bed.create("pvc-auth");
        bed.stub().exportVolume(export(true));
        bed.stub().allowInitiator(allow(keys(KEY_1)));
        bed.stop();
        bed.start(FakeConfigfsTree.createWithAuth().addBlockDevice(dir.resolve("dev/vg0/pvc-auth")));
        assertThat(bed.configfs().entries("subsystems/" + NQN + "/allowed_hosts")).containsExactly(HOST);
        assertThat(hostKey()).contains(KEY_1);
        assertThat(bed.stub().listExports(ListExportsRequest.getDefaultInstance()).getExports(0).getDriftList()).isEmpty();
    }

    @Test
    void anAuthExportNeedsAnAcl() {
        bed.start(FakeConfigfsTree.createWithAuth());
        bed.create("pvc-auth");
        ExportVolumeRequest open = export(true).toBuilder().setExport(export(true).getExport().toBuilder().setAclEnabled(false)).build();
        assertRefused(Status.Code.INVALID_ARGUMENT, "export.auth_required: needs acl_enabled", () -> bed.stub().exportVolume(open));
        assertThat(bed.configfs().entries("subsystems")).isEmpty();
    }
}
