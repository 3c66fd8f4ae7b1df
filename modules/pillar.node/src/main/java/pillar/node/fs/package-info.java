/**
 * Filesystems: the fs-type allow-list (ext4, xfs), the mkfs option allow-list, and the tools (blkid,
 * mkfs, resize2fs, xfs_growfs, blockdev) run as argument lists with deadlines.
 */
package pillar.node.fs;
