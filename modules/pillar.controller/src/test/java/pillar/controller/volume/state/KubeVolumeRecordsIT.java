package pillar.controller.volume.state;

import org.junit.jupiter.api.AfterEach;
import pillar.controller.kube.KubeVolumeRecords;
import pillar.controller.reconcile.MockApi;

/** The {@link VolumeRecordsContract} held against the fabric8 adapter on the mock API server (strict CRUD). */
class KubeVolumeRecordsIT extends VolumeRecordsContract {
    private MockApi api;

    @Override
    VolumeRecords records() {
        api = MockApi.start();
        return new KubeVolumeRecords(api.client);
    }

    @Override
    boolean refusesStaleDeletes() {
        return false; // fabric8's mock server ignores a delete's resourceVersion precondition
    }

    @AfterEach
    void stop() {
        if (api != null) {
            api.close();
        }
    }
}
