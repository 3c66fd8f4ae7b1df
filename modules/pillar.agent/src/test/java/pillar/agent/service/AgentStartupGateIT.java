package pillar.agent.service;

import static org.assertj.core.api.Assertions.assertThat;
import static pillar.agent.service.AgentBed.MIB;
import static pillar.agent.service.AgentBed.assertCode;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import io.grpc.Status;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import pillar.agent.backend.BackendVolume;
import pillar.agent.backend.KernelExports;
import pillar.agent.backend.VolumeBackend;
import pillar.agent.state.InstallationId;
import pillar.api.agent.v1.CreateVolumeRequest;
import pillar.api.agent.v1.DeleteVolumeRequest;
import pillar.api.agent.v1.GetCapabilitiesRequest;
import pillar.api.agent.v1.GetCapacityRequest;
import pillar.api.agent.v1.ListExportsRequest;
import pillar.api.agent.v1.UnexportVolumeRequest;
import pillar.api.value.ByteSize;
import pillar.api.value.VolumeId;

/**
 * Start-up admits no change before the durable exports are re-applied: with the re-apply held
 * (a backend whose look-up waits), calls that change state answer UNAVAILABLE and change nothing,
 * reads are served, readiness is down; a DeleteVolume that raced the re-apply is therefore never
 * undone by it, and once the gate opens the delete goes through and stays done across a restart.
 */
class AgentStartupGateIT {
    private static final String NQN = "nqn.2024-06.io.pillar-csi:pvc-race";

    @TempDir
    Path dir;

    private AgentBed bed;

    @BeforeEach
    void oneExportedVolume() {
        bed = new AgentBed(dir);
        bed.start("storage-1");
        bed.createExportAndAllow("pvc-race");
        bed.stopAgent();
    }

    @AfterEach
    void stop() {
        bed.close();
    }

    @Test
    void changesRacingTheReapplyAreRefusedWithUnavailableAndNeverUndone() throws Exception {
        CountDownLatch reapplying = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        CompletableFuture<Void> starting = CompletableFuture.runAsync(() -> bed.start(bed.config("storage-1"),
                backends -> held(backends, reapplying, release)));
        assertThat(reapplying.await(60, TimeUnit.SECONDS)).isTrue();
        List<String> journal = bed.configfs.journal();
        int commands = bed.lvm.argvs().size();

        var refused = assertCode(Status.Code.UNAVAILABLE, () -> bed.stub().deleteVolume(DeleteVolumeRequest.newBuilder()
                .setToken(bed.token(1)).setVolumeId("pvc-race").setBackend("fast").build()));
        assertThat(refused.getStatus().getDescription()).isEqualTo("the agent is starting: re-applying 1 export to the kernel, try again");
        assertCode(Status.Code.UNAVAILABLE, () -> bed.stub().createVolume(CreateVolumeRequest.newBuilder().setToken(bed.token(0))
                .setVolumeId("pvc-new").setBackend("fast").setSizeBytes(MIB).build()));
        assertCode(Status.Code.UNAVAILABLE, () -> bed.stub().unexportVolume(UnexportVolumeRequest.newBuilder()
                .setToken(bed.token(1)).setVolumeId("pvc-race").build()));
        // reads are served meanwhile; readiness says not yet
        assertThat(bed.stub().listExports(ListExportsRequest.getDefaultInstance()).getExportsList())
                .extracting(e -> e.getVolumeId()).containsExactly("pvc-race");
        assertThat(bed.stub().getCapacity(GetCapacityRequest.newBuilder().setBackend("fast").build()).getTotalBytes()).isEqualTo(512 * MIB);
        assertThat(bed.stub().getCapabilities(GetCapabilitiesRequest.getDefaultInstance()).hasProblem()).isFalse();
        assertThat(bed.readiness().statusCode()).isEqualTo(503);
        assertThat(bed.configfs.journal()).isEqualTo(journal);
        // only the reads ran: the capacity and the thin pool's zeroing (GetCapabilities' problem)
        assertThat(bed.lvm.argvs().subList(commands, bed.lvm.argvs().size())).extracting(argv -> argv.get(0))
                .isNotEmpty().isSubsetOf("lvs", "vgs");

        release.countDown();
        starting.get(60, TimeUnit.SECONDS);
        assertThat(bed.readiness().statusCode()).isEqualTo(200);
        // the refused delete changed nothing: the volume and its export are as recorded
        assertThat(bed.lvm.exists("pvc-race")).isTrue();
        assertThat(bed.configfs.entries("subsystems")).containsExactly(NQN);
        assertThat(bed.configfs.entries("subsystems/" + NQN + "/allowed_hosts")).containsExactly(AgentBed.HOST);

        // retried after the gate opened, the delete goes through, and a restart does not bring it back
        bed.stub().deleteVolume(DeleteVolumeRequest.newBuilder().setToken(bed.token(1)).setVolumeId("pvc-race").setBackend("fast").build());
        bed.start("storage-1");
        assertThat(bed.lvm.exists("pvc-race")).isFalse();
        assertThat(bed.configfs.entries("subsystems")).isEmpty();
        assertThat(bed.stub().listExports(ListExportsRequest.getDefaultInstance()).getExportsList()).isEmpty();
    }

    /** The backends, each one's look-up (what the re-apply does first per record) held until {@code release}. */
    private static Map<String, VolumeBackend> held(Map<String, VolumeBackend> backends, CountDownLatch reapplying,
                                                   CountDownLatch release) {
        Map<String, VolumeBackend> held = new LinkedHashMap<>();
        backends.forEach((name, backend) -> held.put(name, new HeldFind(backend, reapplying, release)));
        return held;
    }

    /** A backend whose {@link #find} waits for a latch: a re-apply slowed down deliberately. */
    private record HeldFind(VolumeBackend backend, CountDownLatch reapplying, CountDownLatch release) implements VolumeBackend {
        @Override
        public Optional<BackendVolume> find(VolumeId id) {
            reapplying.countDown();
            try {
                if (!release.await(60, TimeUnit.SECONDS)) {
                    throw new IllegalStateException("the test never released the re-apply");
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
            return backend.find(id);
        }

        @Override
        public String name() {
            return backend.name();
        }

        @Override
        public BackendVolume create(VolumeId id, ByteSize size, Map<String, String> options, NonZeroingPool pool) {
            return backend.create(id, size, options, pool);
        }

        @Override
        public Optional<pillar.agent.backend.BackendProblem> problem() {
            return backend.problem();
        }

        @Override
        public Optional<InstallationId> owner(VolumeId id) {
            return backend.owner(id);
        }

        @Override
        public BackendVolume adopt(VolumeId id, ByteSize minSize, KernelExports exports) {
            return backend.adopt(id, minSize, exports);
        }

        @Override
        public ByteSize expand(VolumeId id, ByteSize required) {
            return backend.expand(id, required);
        }

        @Override
        public void delete(VolumeId id) {
            backend.delete(id);
        }

        @Override
        public List<BackendVolume> list() {
            return backend.list();
        }

        @Override
        public Capacity capacity() {
            return backend.capacity();
        }
    }
}
