package pillar.controller.volume.state;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static pillar.controller.csi.CsiHarness.GIB;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import io.grpc.Status;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import pillar.runtime.server.CsiException;
import pillar.api.value.VolumeId;
import pillar.controller.crd.PillarVolumeState;
import pillar.controller.crd.PillarVolumeStateStatus;
import pillar.controller.crd.Publication;
import pillar.controller.csi.CsiHarness;
import pillar.controller.csi.Requests;
import pillar.controller.kube.KubeVolumeRecords;

/**
 * The compare-and-swap itself, made to conflict on purpose: two writers decide on the same
 * resourceVersion; the second write is refused by the API server (409), the state is read again and
 * the decision is made again on what the first writer recorded. Generations never repeat.
 */
class VolumeStatesCasIT {
    @RegisterExtension
    final CsiHarness harness = CsiHarness.withFakeAgent();

    @Test
    void aConflictReadsTheStateAgainAndDecidesOnWhatTheOtherWriterRecorded() {
        harness.csi().createVolume(Requests.create("pvc-cas", GIB));
        VolumeStates states = new VolumeStates(new KubeVolumeRecords(harness.client()));
        PillarVolumeState first = states.get(VolumeId.of("pvc-cas")).orElseThrow();
        PillarVolumeState stale = states.get(VolumeId.of("pvc-cas")).orElseThrow();
        long generation = first.getStatus().getPublicationGeneration();

        PillarVolumeState written = states.updateStatus(first, s -> Optional.of(publish(states, s, Requests.NODE_A)));
        assertThat(written.getStatus().getPublicationGeneration()).isEqualTo(generation + 1);

        List<String> seen = new ArrayList<>();
        assertThatThrownBy(() -> states.updateStatus(stale, s -> {
            seen.add(s.getMetadata().getResourceVersion());
            if (!s.getStatus().getPublications().isEmpty()) {
                throw CsiException.precondition("published to " + s.getStatus().getPublications());
            }
            return Optional.of(publish(states, s, Requests.NODE_B));
        })).isInstanceOfSatisfying(CsiException.class, e -> assertThat(e.code()).isEqualTo(Status.Code.FAILED_PRECONDITION));
        assertThat(seen).containsExactly(stale.getMetadata().getResourceVersion(), written.getMetadata().getResourceVersion());
        PillarVolumeState now = states.get(VolumeId.of("pvc-cas")).orElseThrow();
        assertThat(now.getStatus().getPublications()).extracting(Publication::getNode).containsExactly(Requests.NODE_A);
        assertThat(now.getStatus().getPublicationGeneration()).isEqualTo(generation + 1);
    }

    private static PillarVolumeStateStatus publish(VolumeStates states, PillarVolumeState state, String node) {
        PillarVolumeStateStatus next = states.statusOf(state);
        next.getPublications().add(new Publication(node, false, "SINGLE_NODE_WRITER"));
        next.setPublicationGeneration(next.getPublicationGeneration() + 1);
        return next;
    }
}
