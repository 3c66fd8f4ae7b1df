package pillar.agent.service;

import static org.assertj.core.api.Assertions.assertThat;
import static pillar.agent.service.AgentBed.HOST;
import static pillar.agent.service.AgentBed.MIB;
import static pillar.agent.service.AgentBed.assertCode;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

import io.grpc.Status;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import pillar.agent.export.ExportRecord;
import pillar.agent.export.ExportStore;
import pillar.agent.state.InstallationId;
import pillar.agent.state.StateIdentity;
import pillar.agent.state.StateRecovery;
import pillar.api.agent.v1.CreateVolumeRequest;
import pillar.api.agent.v1.DeleteVolumeRequest;
import pillar.api.agent.v1.DenyInitiatorRequest;
import pillar.api.agent.v1.GetCapabilitiesRequest;
import pillar.api.agent.v1.ListExportsRequest;
import pillar.api.agent.v1.Problem;
import pillar.api.value.Nqn;

/**
 * Losing the state directory never tears down live exports: an agent that finds no identity while
 * pillar-csi subsystems are live, or another node's state, prunes nothing, re-applies nothing and
 * refuses every change (FAILED_PRECONDITION), reporting AgentStateMissing in GetCapabilities, in
 * readiness and in its log; the operator's recovery rebuilds the records from the kernel exactly,
 * learns the installation from the volumes, and the agent then serves as before.
 */
class AgentStateMissingIT {
    private static final String NQN = "nqn.2024-06.io.pillar-csi:pvc-live";

    @TempDir
    Path dir;

    private AgentBed bed;
    private List<ExportRecord> recorded;
    private StateIdentity identity;

    @BeforeEach
    void oneLiveExport() {
        bed = new AgentBed(dir);
        bed.start("storage-1");
        bed.createExportAndAllow("pvc-live");
        bed.stopAgent();
        recorded = new ExportStore(stateDir()).list(ExportRecord.class);
        identity = StateIdentity.read(stateDir()).orElseThrow();
    }

    @AfterEach
    void stop() {
        bed.close();
    }

    @Test
    void aLostStateDirectoryPrunesNothingAndRefusesEveryChange() throws IOException {
        wipe(stateDir());
        List<String> journal = bed.configfs.journal();
        bed.start("storage-1");

        assertThat(bed.configfs.journal()).as("not one configfs write").isEqualTo(journal);
        assertThat(bed.configfs.entries("subsystems")).containsExactly(NQN);
        assertThat(bed.configfs.entries("subsystems/" + NQN + "/allowed_hosts")).containsExactly(HOST);
        assertThat(bed.configfs.value("subsystems/" + NQN + "/namespaces/1/enable")).contains("1");
        assertRefusedAndReported("has no identity, but the kernel exports pillar-csi subsystems");
        assertThat(stateDir().resolve(StateIdentity.FILE)).doesNotExist();
        assertThat(bed.lvm.exists("pvc-live")).isTrue();
    }

    @Test
    void anotherNodesStateDirectoryIsRefusedTheSameWay() {
        List<String> journal = bed.configfs.journal();
        bed.start("storage-2");
        assertThat(bed.configfs.journal()).isEqualTo(journal);
        assertRefusedAndReported("belongs to node storage-1, not to this node storage-2");
        assertThat(StateIdentity.read(stateDir())).contains(identity);
    }

    @Test
    void theRecoveryRebuildsTheRecordsFromTheKernelAndTheAgentServesAgain() throws IOException {
        wipe(stateDir());
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        boolean recovered = StateRecovery.run(stateDir(), "storage-1", Optional.empty(), bed.configfs.target(), bed::backends,
                Clock.systemUTC(), new PrintStream(out, true, StandardCharsets.UTF_8));

        assertThat(recovered).as(out.toString(StandardCharsets.UTF_8)).isTrue();
        assertThat(new ExportStore(stateDir()).list(ExportRecord.class)).isEqualTo(recorded);
        // the generated installation was learnt back from the LV's tag, not made up afresh
        assertThat(StateIdentity.read(stateDir())).map(StateIdentity::installation).contains(identity.installation());
        assertThat(out.toString(StandardCharsets.UTF_8)).contains("recorded pvc-live: " + recorded.getFirst().device())
                .contains("restart the agent");

        List<String> journal = bed.configfs.journal();
        bed.start("storage-1");
        assertThat(bed.readiness().statusCode()).isEqualTo(200);
        assertThat(bed.stub().getCapabilities(GetCapabilitiesRequest.getDefaultInstance()).hasProblem()).isFalse();
        assertThat(bed.stub().listExports(ListExportsRequest.getDefaultInstance()).getExports(0).getDriftList()).isEmpty();
        assertThat(bed.configfs.changes().subList(journal.size(), bed.configfs.changes().size())).as("the re-apply changed nothing")
                .isEmpty();
        // the fencing marks were lost with the directory: the first call with a token sets the volume's mark again
        bed.stub().denyInitiator(DenyInitiatorRequest.newBuilder().setToken(bed.token(3)).setVolumeId("pvc-live").setHostNqn(HOST).build());
        assertCode(Status.Code.FAILED_PRECONDITION, () -> bed.stub().deleteVolume(DeleteVolumeRequest.newBuilder()
                .setToken(bed.token(2)).setVolumeId("pvc-live").setBackend("fast").build()));
        bed.stub().deleteVolume(DeleteVolumeRequest.newBuilder().setToken(bed.token(3)).setVolumeId("pvc-live").setBackend("fast").build());
        assertThat(bed.configfs.entries("subsystems")).isEmpty();
        assertThat(bed.lvm.exists("pvc-live")).isFalse();
    }

    @Test
    void aRecoveryThatCannotAccountForALiveSubsystemWritesNothing() throws IOException {
        wipe(stateDir());
        bed.configfs.target().ensureSubsystem(Nqn.of("nqn.2024-06.io.pillar-csi:pvc-stranger"), true);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        boolean recovered = StateRecovery.run(stateDir(), "storage-1", Optional.of(InstallationId.of("other")),
                bed.configfs.target(), bed::backends, Clock.systemUTC(), new PrintStream(out, true, StandardCharsets.UTF_8));

        assertThat(recovered).isFalse();
        assertThat(out.toString(StandardCharsets.UTF_8)).contains("the state was NOT recovered, nothing was written")
                .contains("left " + NQN + ": its volume is installation [" + identity.installation() + "]'s, not other's")
                .contains("nqn.2024-06.io.pillar-csi:pvc-stranger: has no namespace 1 with a device");
        assertThat(stateDir().resolve(StateIdentity.FILE)).doesNotExist();
        assertThat(new ExportStore(stateDir()).list(ExportRecord.class)).isEmpty();
    }

    private void assertRefusedAndReported(String condition) {
        var create = assertCode(Status.Code.FAILED_PRECONDITION, () -> bed.stub().createVolume(CreateVolumeRequest.newBuilder()
                .setToken(bed.token(0)).setVolumeId("pvc-other").setBackend("fast").setSizeBytes(MIB).build()));
        assertThat(create.getStatus().getDescription()).startsWith("AgentStateMissing: ").contains(condition)
                .contains("live pillar-csi subsystems: 1 (" + NQN + ")").contains("--recover-state")
                .contains("The agent prunes nothing, re-applies nothing");
        assertCode(Status.Code.FAILED_PRECONDITION, () -> bed.stub().deleteVolume(DeleteVolumeRequest.newBuilder()
                .setToken(bed.token(1)).setVolumeId("pvc-live").setBackend("fast").build()));
        Problem problem = bed.stub().getCapabilities(GetCapabilitiesRequest.getDefaultInstance()).getProblem();
        assertThat(problem.getReason()).isEqualTo("AgentStateMissing");
        assertThat(problem.getMessage()).isEqualTo(create.getStatus().getDescription()).contains(stateDir().toString());
        var readiness = bed.readiness();
        assertThat(readiness.statusCode()).isEqualTo(503);
        assertThat(readiness.body()).contains("AgentStateMissing");
        assertThat(bed.lvm.exists("pvc-live")).isTrue();
        assertThat(bed.lvm.exists("pvc-other")).isFalse();
    }

    private Path stateDir() {
        return dir.resolve("state");
    }

    private static void wipe(Path dir) throws IOException {
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path file : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(file);
            }
        }
    }
}
