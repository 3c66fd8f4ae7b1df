/**
 * The CSI Controller service ({@link pillar.controller.csi.ControllerService}): each call checked,
 * held per volume ({@code pillar.runtime.server.VolumeLocks}), and carried out by the volume state
 * machine of {@code pillar.controller.volume} ({@link pillar.controller.volume.Volumes}) only on the
 * leading replica ({@link pillar.controller.volume.Leading}); ListVolumes pages the informer cache
 * of the states ({@link pillar.controller.csi.VolumeCatalog}); the nodes' host NQNs are watched by
 * {@link pillar.controller.csi.HostNqns}.
 */
package pillar.controller.csi;
