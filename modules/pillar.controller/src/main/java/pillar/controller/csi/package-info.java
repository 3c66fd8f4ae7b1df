/**
 * The CSI Controller service ({@link pillar.controller.csi.ControllerService}) and what it keeps per
 * volume: a {@link pillar.controller.crd.PillarVolumeState}, read directly from the API server and
 * written only by compare-and-swap ({@link pillar.controller.csi.VolumeStates}). Every agent call
 * that changes a volume is preceded by a write of the next publication generation and carries it
 * as its fencing token ({@link pillar.controller.csi.Steps}); each call holds its volume
 * ({@link pillar.controller.csi.VolumeLocks}) and changes volumes only on the leading replica
 * ({@link pillar.controller.csi.Leading}). {@link pillar.controller.csi.VolumeStateReconciler}
 * reports ExportSpecMissing and carries out its documented recovery.
 */
package pillar.controller.csi;
