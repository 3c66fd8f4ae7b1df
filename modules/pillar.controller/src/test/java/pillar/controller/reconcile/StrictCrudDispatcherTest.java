package pillar.controller.reconcile;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;

import io.fabric8.kubernetes.api.model.storage.StorageClass;
import io.fabric8.kubernetes.api.model.storage.StorageClassBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import pillar.controller.crd.PillarVolumeState;
import pillar.controller.crd.PillarVolumeStateSpec;
import pillar.controller.crd.PillarVolumeStateStatus;

/**
 * The test API server refuses stale writes to the object and to its status alike, as a real one does,
 * and serves a forced server-side apply: created when absent, merged (lists replaced) when present.
 */
class StrictCrudDispatcherTest {
    private MockApi api;
    private KubernetesClient client;

    @BeforeEach
    void start() {
        api = MockApi.start();
        client = api.client;
    }

    @AfterEach
    void stop() {
        api.close();
    }

    @Test
    void aStaleStatusWriteIsAConflictAndAFreshOneIsNot() {
        PillarVolumeState state = new PillarVolumeState();
        state.getMetadata().setName("pvc-1");
        state.setSpec(new PillarVolumeStateSpec());
        var states = client.resources(PillarVolumeState.class);
        states.resource(state).create();
        PillarVolumeState a = states.withName("pvc-1").get();
        PillarVolumeState b = states.withName("pvc-1").get();
        a.setStatus(new PillarVolumeStateStatus());
        a.getStatus().setPublicationGeneration(1L);
        states.resource(a).updateStatus();
        b.setStatus(new PillarVolumeStateStatus());
        b.getStatus().setPublicationGeneration(7L);
        assertThatThrownBy(() -> states.resource(b).updateStatus()).isInstanceOfSatisfying(KubernetesClientException.class,
                e -> assertThat(e.getCode()).isEqualTo(409));
        b.getMetadata().getAnnotations().put("x", "y");
        assertThatThrownBy(() -> states.resource(b).update()).isInstanceOfSatisfying(KubernetesClientException.class,
                e -> assertThat(e.getCode()).isEqualTo(409));
        assertThat(states.withName("pvc-1").get().getStatus().getPublicationGeneration()).isEqualTo(1L);

        PillarVolumeState fresh = states.withName("pvc-1").get();
        fresh.getStatus().setPublicationGeneration(2L);
        assertThat(states.resource(fresh).updateStatus().getStatus().getPublicationGeneration()).isEqualTo(2L);
    }

    @Test
    void aServerSideApplyCreatesAndThenMergesReplacingLists() {
        var classes = client.storage().v1().storageClasses();
        StorageClass first = new StorageClassBuilder().withNewMetadata().withName("applied").endMetadata()
                .withProvisioner("pillar.csi.io").withMountOptions("a", "b").withParameters(Map.of("x", "1")).build();
        String uid = classes.resource(first).fieldManager("kubectl").forceConflicts().serverSideApply().getMetadata().getUid();
        StorageClass second = new StorageClassBuilder(first).withMountOptions("c").withParameters(Map.of("y", "2")).build();

        classes.resource(second).fieldManager("kubectl").forceConflicts().serverSideApply();

        StorageClass stored = classes.withName("applied").get();
        assertThat(stored.getMetadata().getUid()).isEqualTo(uid);
        assertThat(stored.getMountOptions()).containsExactly("c");
        assertThat(stored.getParameters()).containsExactlyInAnyOrderEntriesOf(Map.of("x", "1", "y", "2"));
    }
}
