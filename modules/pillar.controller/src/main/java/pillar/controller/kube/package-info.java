/**
 * The fabric8 adapters of the volume state machine's ports: {@link pillar.controller.kube.KubeVolumeRecords}
 * and {@link pillar.controller.kube.KubeInventory}.
 */
package pillar.controller.kube;
