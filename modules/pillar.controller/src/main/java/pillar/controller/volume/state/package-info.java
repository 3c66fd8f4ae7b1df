/**
 * The volumes' durable records: the PillarVolumeStates behind their port, read and written by
 * compare-and-swap, what a record's absent fields mean, and the CSI Volume a record is.
 */
package pillar.controller.volume.state;
