package pillar.agent.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import pillar.agent.backend.lvm.FakeLvm;
import pillar.agent.configfs.FakeConfigfsTree;
import pillar.api.agent.HealthBatch;
import pillar.api.agent.v1.CreateVolumeRequest;
import pillar.api.agent.v1.ExportSpec;
import pillar.api.agent.v1.ExportVolumeRequest;
import pillar.api.agent.v1.GetVolumeHealthRequest;
import pillar.api.agent.v1.GetVolumesHealthRequest;
import pillar.api.agent.v1.VolumeHealthError;
import pillar.api.agent.v1.VolumeHealthResult;
import pillar.api.fencing.FencingToken;
import pillar.api.value.LifecycleUid;
import pillar.api.value.Nqn;

/**
 * GetVolumesHealth over real gRPC, on the fake LVM and the kernel-like fake configfs: each entry is what
 * GetVolumeHealth answers for it, in the request's order; a bad entry is that entry's error, with the
 * status the single call answers, and the others are still read; more than {@link HealthBatch#MAX_ENTRIES}
 * entries is INVALID_ARGUMENT and reads nothing.
 */
class VolumesHealthIT {
    private static final long MIB = 1L << 20;

    @TempDir
    Path dir;

    private final LifecycleUid lifecycle = LifecycleUid.random();
    private FakeLvm lvm;
    private FakeConfigfsTree configfs;
    private FakeThinAgent agent;

    @BeforeEach
    void twoExportedThinVolumes() {
        lvm = new FakeLvm("vg0", 1024 * MIB, dir.resolve("dev")).withThinPool("pool0", 512 * MIB);
        configfs = FakeConfigfsTree.create();
        agent = FakeThinAgent.start(dir.resolve("state"), configfs, lvm);
        for (String id : List.of("pvc-1", "pvc-2")) {
            var volume = agent.stub().createVolume(CreateVolumeRequest.newBuilder().setToken(token()).setVolumeId(id)
                    .setBackend("fast").setSizeBytes(64 * MIB).build()).getVolume();
            configfs.addBlockDevice(Path.of(volume.getDevicePath()));
            agent.stub().exportVolume(ExportVolumeRequest.newBuilder().setToken(token()).setVolumeId(id).setBackend("fast")
                    .setExport(ExportSpec.newBuilder().setBindAddress("127.0.0.1").setPort(4420).setAclEnabled(true)).build());
        }
    }

    @AfterEach
    void stop() throws InterruptedException {
        agent.channel().shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
        agent.agent().close();
    }

    @Test
    void eachEntryIsWhatGetVolumeHealthAnswersInTheRequestsOrder() {
        lvm.setUsage("pool0", 95.5, 12);
        configfs.target().removeSubsystem(Nqn.of("nqn.2024-06.io.pillar-csi:pvc-2"));
        lvm.removeBehindTheAgent("pvc-1");
        List<GetVolumeHealthRequest> entries = List.of(entry("pvc-2", "fast"), entry("pvc-9", "fast"), entry("pvc-1", "fast"));

        List<VolumeHealthResult> results = batch(entries);

        assertThat(results).extracting(VolumeHealthResult::getVolumeId).containsExactly("pvc-2", "pvc-9", "pvc-1");
        for (int i = 0; i < entries.size(); i++) {
            assertThat(results.get(i).getBackend()).isEqualTo("fast");
            assertThat(results.get(i).getHealth()).isEqualTo(agent.stub().getVolumeHealth(entries.get(i)));
        }
        assertThat(results.get(0).getHealth().getExportDriftList()).isNotEmpty();
        assertThat(results.get(2).getHealth().getVolumePresent()).isFalse();
    }

    @Test
    void aBadEntryIsItsOwnErrorAsTheSingleCallAnswersItAndTheOthersAreRead() {
        List<GetVolumeHealthRequest> bad = List.of(entry("../etc", "fast"), entry("pvc-1", "nope"));

        List<VolumeHealthResult> results = batch(List.of(bad.get(0), entry("pvc-1", "fast"), bad.get(1)));

        assertThat(results.get(1).getHealth().getVolumePresent()).isTrue();
        for (int i : new int[] {0, 2}) {
            VolumeHealthError error = results.get(i).getError();
            StatusRuntimeException single = single(bad.get(i / 2));
            assertThat(error.getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT.value()).isEqualTo(single.getStatus().getCode().value());
            assertThat(error.getMessage()).isEqualTo(single.getStatus().getDescription());
        }
    }

    @Test
    void moreEntriesThanTheBoundIsInvalidArgumentAndReadsNothingAndNoneIsNoResult() {
        int commands = lvm.argvs().size();
        List<GetVolumeHealthRequest> many = IntStream.rangeClosed(0, HealthBatch.MAX_ENTRIES).mapToObj(i -> entry("pvc-1", "fast")).toList();

        assertThatThrownBy(() -> batch(many)).isInstanceOfSatisfying(StatusRuntimeException.class,
                e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT));
        assertThat(lvm.argvs()).hasSize(commands);
        assertThat(batch(List.of())).isEmpty();
    }

    private List<VolumeHealthResult> batch(List<GetVolumeHealthRequest> entries) {
        return agent.stub().getVolumesHealth(GetVolumesHealthRequest.newBuilder().addAllVolumes(entries).build()).getResultsList();
    }

    private StatusRuntimeException single(GetVolumeHealthRequest entry) {
        try {
            agent.stub().getVolumeHealth(entry);
        } catch (StatusRuntimeException e) {
            return e;
        }
        throw new AssertionError("GetVolumeHealth of " + entry + " succeeded");
    }

    private static GetVolumeHealthRequest entry(String id, String backend) {
        return GetVolumeHealthRequest.newBuilder().setVolumeId(id).setBackend(backend).build();
    }

    private pillar.api.agent.v1.FencingToken token() {
        return FencingToken.of(lifecycle, 0).toProto();
    }
}
