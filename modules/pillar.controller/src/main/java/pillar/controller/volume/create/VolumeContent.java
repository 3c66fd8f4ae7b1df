package pillar.controller.volume.create;

import pillar.controller.crd.VolumeContentSource;

/**
 * The content a new volume is made from, resolved from the CSI request: the source as the volume's
 * spec records it, and where the source lives and how large it is. A restore or clone is made on
 * the source's own backend, at least as large as the source.
 *
 * @param source    the snapshot or volume, and the copy mode
 * @param store     the PillarStore the source is on
 * @param backend   the agent backend the source is on
 * @param sizeBytes the source's size: the smallest the new volume may be
 */
public record VolumeContent(VolumeContentSource source, String store, String backend, long sizeBytes) {
}
