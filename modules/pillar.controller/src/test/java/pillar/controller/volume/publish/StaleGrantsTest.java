package pillar.controller.volume.publish;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.UUID;

import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import org.junit.jupiter.api.Test;
import pillar.api.agent.v1.Export;
import pillar.api.agent.v1.ExportSpec;
import pillar.api.agent.v1.ReconcileRequest;
import pillar.controller.crd.PillarVolumeState;
import pillar.controller.crd.PillarVolumeStateSpec;
import pillar.controller.crd.PillarVolumeStateStatus;
import pillar.controller.crd.Publication;
import pillar.controller.crd.VolumePhase;

class StaleGrantsTest {
    private static final String A = "nqn.2014-08.org.nvmexpress:uuid:aaaaaaaa-0000-4000-8000-000000000001";
    private static final String B = "nqn.2014-08.org.nvmexpress:uuid:bbbbbbbb-0000-4000-8000-000000000002";
    private static final String C = "nqn.2014-08.org.nvmexpress:uuid:cccccccc-0000-4000-8000-000000000003";
    private static final ExportSpec SPEC = ExportSpec.newBuilder().setBindAddress("192.0.2.10").setPort(4420).setAclEnabled(true)
            .build();

    @Test
    void aHostAllowedButNotPublishedIsStaleOnlyForAnExportedStateOfThisAgentAndBackend() {
        List<Export> exports = List.of(export("pvc-a", "fast", C, A, B), export("pvc-b", "fast", B), export("pvc-c", "fast", A),
                export("pvc-d", "slow", A), export("pvc-e", "fast", A));
        List<PillarVolumeState> states = List.of(
                state("pvc-a", "storage-1", "fast", VolumePhase.Exported, A),
                state("pvc-b", "storage-1", "fast", VolumePhase.Exported, B),
                state("pvc-c", "storage-1", "fast", VolumePhase.Deleting),
                state("pvc-d", "storage-1", "slow", VolumePhase.Exported),
                state("pvc-e", "storage-2", "fast", VolumePhase.Exported));

        List<StaleGrants> stale = StaleGrants.of("storage-1", "fast", exports, states);

        assertThat(stale).singleElement().satisfies(g -> {
            assertThat(g.export().getVolumeId()).isEqualTo("pvc-a");
            assertThat(g.stale()).containsExactly(B, C);
            assertThat(g.message("storage-1")).isEqualTo("agent storage-1 still admitted " + B + ", " + C + " to volume pvc-a,"
                    + " which is not published there (a revocation that never reached the agent): revoked");
        });
    }

    @Test
    void theRevocationKeepsTheExportAsTheAgentHoldsItAndNarrowsItsHostsUnderTheCurrentToken() {
        PillarVolumeState state = state("pvc-a", "storage-1", "fast", VolumePhase.Exported, A);
        StaleGrants grant = StaleGrants.of("storage-1", "fast", List.of(export("pvc-a", "fast", A, B)), List.of(state)).getFirst();

        ReconcileRequest revocation = grant.revocation();

        assertThat(revocation.getVolumeId()).isEqualTo("pvc-a");
        assertThat(revocation.getToken().getLifecycleUid()).isEqualTo(state.getMetadata().getUid());
        assertThat(revocation.getToken().getPublicationGeneration()).isEqualTo(7);
        assertThat(revocation.getDesired().getBackend()).isEqualTo("fast");
        assertThat(revocation.getDesired().getExport()).isEqualTo(SPEC);
        assertThat(revocation.getDesired().getAllowedHostsList()).containsExactly(A);
    }

    @Test
    void anNfsExportsClientAddressesAreComparedWithTheAddressesItsPublicationsRecorded() {
        PillarVolumeState state = state("pvc-n", "storage-1", "shared", VolumePhase.Exported);
        state.getStatus().getPublications().add(new Publication(A, false, "MULTI_NODE_MULTI_WRITER").withClientAddress("10.0.0.1"));
        state.getStatus().getPublications().add(new Publication(B, false, "MULTI_NODE_MULTI_WRITER").withClientAddress("10.0.0.2"));

        List<StaleGrants> stale = StaleGrants.of("storage-1", "shared",
                List.of(export("pvc-n", "shared", "10.0.0.1", "10.0.0.2", "10.0.0.3")), List.of(state));

        assertThat(stale).singleElement().satisfies(g -> {
            assertThat(g.stale()).as("a node's NQN is never what an NFS export lists").containsExactly("10.0.0.3");
            assertThat(g.revocation().getDesired().getAllowedHostsList()).containsExactly("10.0.0.1", "10.0.0.2");
        });
    }

    @Test
    void anExportWhoseKernelDriftedIsRepairedAsRecordedWithoutWideningIt() {
        PillarVolumeState exported = state("pvc-a", "storage-1", "fast", VolumePhase.Exported, A);
        PillarVolumeState deleting = state("pvc-b", "storage-1", "fast", VolumePhase.Deleting);
        List<Export> exports = List.of(export("pvc-a", "fast", A).toBuilder().addDrift("host " + A + " missing").build(),
                export("pvc-b", "fast").toBuilder().addDrift("namespace 1 missing").build());

        List<StaleGrants> found = StaleGrants.of("storage-1", "fast", exports, List.of(exported, deleting));

        assertThat(found).singleElement().satisfies(g -> {
            assertThat(g.stale()).isEmpty();
            assertThat(g.drift()).containsExactly("host " + A + " missing");
            assertThat(g.reason()).isEqualTo(StaleGrants.DRIFT_REPAIRED);
            assertThat(g.revocation().getDesired().getAllowedHostsList()).containsExactly(A);
            assertThat(g.revocation().getDesired().getExport()).isEqualTo(SPEC);
            assertThat(g.message("storage-1")).isEqualTo("agent storage-1: volume pvc-a: its export in the kernel differed from"
                    + " the agent's record (host " + A + " missing): re-applied");
        });
        // a stale grant and drift at once: one repair, the revocation's reason, both said
        StaleGrants both = StaleGrants.of("storage-1", "fast", List.of(export("pvc-a", "fast", A, B).toBuilder()
                .addDrift("host " + B + " exported but not allowed").build()), List.of(exported)).getFirst();
        assertThat(both.reason()).isEqualTo(StaleGrants.REVOKED);
        assertThat(both.message("storage-1")).endsWith("revoked; its export in the kernel differed from the agent's record (host "
                + B + " exported but not allowed): re-applied");
    }

    @Test
    void anAuthenticatedExportsPublicationNqnsAndTheNodeNqnOfAPublicationMadeBeforeAreNotStale() {
        PillarVolumeState state = state("pvc-k", "storage-1", "fast", VolumePhase.Exported, A);
        pillar.controller.crd.VolumeExport auth = new pillar.controller.crd.VolumeExport();
        auth.setAuthRequired(Boolean.TRUE);
        state.getSpec().setExport(auth);
        String ownA = pillar.api.context.PublicationHost.nqn(A, "pvc-k").value();
        String ownB = pillar.api.context.PublicationHost.nqn(B, "pvc-k").value();

        List<StaleGrants> stale = StaleGrants.of("storage-1", "fast", List.of(export("pvc-k", "fast", ownA, A, ownB, B)),
                List.of(state));

        assertThat(stale).singleElement().satisfies(g -> assertThat(g.stale()).containsExactlyInAnyOrder(B, ownB));
    }

    private static Export export(String id, String backend, String... hosts) {
        return Export.newBuilder().setVolumeId(id).setBackend(backend).setExport(SPEC).addAllAllowedHosts(List.of(hosts)).build();
    }

    private static PillarVolumeState state(String id, String agent, String backend, VolumePhase phase, String... published) {
        PillarVolumeState state = new PillarVolumeState();
        state.setMetadata(new ObjectMetaBuilder().withName(id).withUid(UUID.nameUUIDFromBytes(id.getBytes()).toString()).build());
        PillarVolumeStateSpec spec = new PillarVolumeStateSpec();
        spec.setAgent(agent);
        spec.setBackend(backend);
        state.setSpec(spec);
        PillarVolumeStateStatus status = new PillarVolumeStateStatus();
        status.setPhase(phase);
        status.setPublicationGeneration(7L);
        status.setPublications(new java.util.ArrayList<>(java.util.Arrays.stream(published)
                .map(node -> new Publication(node, false, "SINGLE_NODE_WRITER")).toList()));
        state.setStatus(status);
        return state;
    }
}
