package pillar.controller.kube;

import io.fabric8.kubernetes.client.KubernetesClient;
import pillar.controller.crd.PillarVolumeState;
import pillar.controller.volume.state.VolumeRecords;

/** The PillarVolumeStates in the Kubernetes API. */
public final class KubeVolumeRecords extends KubeRecords<PillarVolumeState> implements VolumeRecords {
    public KubeVolumeRecords(KubernetesClient client) {
        super(client, PillarVolumeState.class);
    }
}
