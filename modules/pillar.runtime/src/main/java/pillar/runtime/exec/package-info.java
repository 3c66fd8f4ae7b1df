/**
 * Commands as argument lists with deadlines ({@link pillar.runtime.exec.ProcessRunner}). Shared by the
 * agent (zfs, lvm) and the node (mkfs, blkid, resize tools) so both obey one contract.
 */
package pillar.runtime.exec;
