package pillar.controller.snapshot;

import org.junit.jupiter.api.AfterEach;
import pillar.controller.kube.KubeSnapshotRecords;
import pillar.controller.reconcile.MockApi;

/** The {@link SnapshotRecordsContract} held against the fabric8 adapter on the mock API server, the generated CRD installed. */
class KubeSnapshotRecordsIT extends SnapshotRecordsContract {
    private MockApi api;

    @Override
    SnapshotRecords records() {
        api = MockApi.start();
        return new KubeSnapshotRecords(api.client);
    }

    @AfterEach
    void stop() {
        if (api != null) {
            api.close();
        }
    }
}
