package pillar.agent.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import pillar.api.agent.AgentErrors;
import pillar.api.agent.v1.AgentErrorReason;
import pillar.api.agent.v1.AllowInitiatorRequest;
import pillar.api.agent.v1.DenyInitiatorRequest;
import pillar.api.agent.v1.GetCapabilitiesRequest;
import pillar.api.agent.v1.UnexportVolumeRequest;

/**
 * One damaged record never stops an agent (a real agent server over gRPC, on the fake kernel): a
 * restart with an export record and a fencing mark damaged serves and turns ready, reports both (its
 * log, the gauge, GetCapabilities for the controller's condition) and leaves them on disk; the damaged
 * record's export stays in the kernel as it was, its volume's calls are refused (reason RECORD_DAMAGED),
 * and a deny still goes through, in the kernel, on the volume whose mark or whose export record is damaged.
 */
class AgentDamagedRecordIT {
    @TempDir
    Path dir;

    private AgentBed bed;

    @BeforeEach
    void start() {
        bed = new AgentBed(dir);
        bed.start("storage-1");
        bed.createExportAndAllow("pvc-a");
        bed.createExportAndAllow("pvc-b");
        bed.createExportAndAllow("pvc-c");
    }

    @AfterEach
    void stop() {
        bed.close();
    }

    @Test
    void aRestartWithADamagedRecordAndMarkServesEveryOtherVolumeAndCanStillDeny() throws Exception {
        bed.stopAgent();
        Path record = dir.resolve("state/exports/pvc-a");
        Path mark = dir.resolve("state/generations/pvc-b");
        Files.writeString(record, Files.readString(record).replace("acl=true", "acl=maybe"));
        Files.writeString(mark, "version=1\nlifecycle=garbage\n");
        String nqnA = "nqn.2024-06.io.pillar-csi:pvc-a";

        bed.start("storage-1");
        assertThat(bed.readiness().statusCode()).as("ready: every other export re-applied").isEqualTo(200);
        assertThat(bed.stub().getCapabilities(GetCapabilitiesRequest.getDefaultInstance()).getDamagedRecordsList())
                .satisfiesExactlyInAnyOrder(
                        line -> assertThat(line).contains(record.toString(), "export record", "restores or removes"),
                        line -> assertThat(line).contains(mark.toString(), "fencing mark"));
        assertThat(metrics()).contains("pillar_agent_damaged_records{kind=\"export\"} 1.0",
                "pillar_agent_damaged_records{kind=\"mark\"} 1.0");
        assertThat(record).exists();
        assertThat(mark).hasContent("version=1\nlifecycle=garbage\n");
        assertThat(bed.configfs.entries("subsystems")).as("the damaged record's export is not pruned").contains(nqnA);
        assertThat(bed.configfs.entries("subsystems/" + nqnA + "/allowed_hosts")).containsExactly(AgentBed.HOST);

        assertThatThrownBy(() -> bed.stub().allowInitiator(AllowInitiatorRequest.newBuilder()
                .setToken(bed.token(0)).setVolumeId("pvc-a").setHostNqn(AgentBed.HOST).build()))
                .isInstanceOfSatisfying(StatusRuntimeException.class, e -> {
                    assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.FAILED_PRECONDITION);
                    assertThat(AgentErrors.reasonOf(e)).isEqualTo(AgentErrorReason.AGENT_ERROR_REASON_RECORD_DAMAGED);
                });
        bed.stub().denyInitiator(DenyInitiatorRequest.newBuilder().setToken(bed.token(0)).setVolumeId("pvc-b")
                .setHostNqn(AgentBed.HOST).build());
        assertThat(bed.configfs.entries("subsystems/nqn.2024-06.io.pillar-csi:pvc-b/allowed_hosts")).as("denied").isEmpty();
        bed.stub().denyInitiator(DenyInitiatorRequest.newBuilder().setToken(bed.token(0)).setVolumeId("pvc-a")
                .setHostNqn(AgentBed.HOST).build());
        assertThat(bed.configfs.entries("subsystems/" + nqnA + "/allowed_hosts")).as("denied in the kernel, its record damaged")
                .isEmpty();
        assertThat(record).as("the damaged record is left for the operator").exists();
        bed.stub().denyInitiator(DenyInitiatorRequest.newBuilder().setToken(bed.token(0)).setVolumeId("pvc-c")
                .setHostNqn(AgentBed.HOST).build());
        assertThat(bed.configfs.entries("subsystems/nqn.2024-06.io.pillar-csi:pvc-c/allowed_hosts")).isEmpty();

        // the controller's unexport (a valid token) removes the damaged record with its export: reported no more
        bed.stub().unexportVolume(UnexportVolumeRequest.newBuilder().setToken(bed.token(0)).setVolumeId("pvc-a").build());
        assertThat(bed.configfs.entries("subsystems")).doesNotContain(nqnA);
        assertThat(bed.stub().getCapabilities(GetCapabilitiesRequest.getDefaultInstance()).getDamagedRecordsList())
                .singleElement().satisfies(line -> assertThat(line).contains(mark.toString()));
    }

    private String metrics() throws IOException {
        java.net.HttpURLConnection connection = (java.net.HttpURLConnection) URI.create("http://127.0.0.1:" + bed.healthPort
                + "/metrics").toURL().openConnection();
        try (java.io.InputStream in = connection.getInputStream()) {
            return new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        }
    }
}
