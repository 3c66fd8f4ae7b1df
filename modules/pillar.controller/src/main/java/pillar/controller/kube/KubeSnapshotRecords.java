package pillar.controller.kube;

import io.fabric8.kubernetes.client.KubernetesClient;
import pillar.controller.crd.PillarSnapshotState;
import pillar.controller.snapshot.SnapshotRecords;

/** The PillarSnapshotStates in the Kubernetes API. */
public final class KubeSnapshotRecords extends KubeRecords<PillarSnapshotState> implements SnapshotRecords {
    public KubeSnapshotRecords(KubernetesClient client) {
        super(client, PillarSnapshotState.class);
    }
}
