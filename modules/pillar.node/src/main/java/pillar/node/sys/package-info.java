/**
 * The C library calls pillar-node makes itself (mount, umount2, statfs, stat, and open/read/write on
 * the fabrics device) through JNA, with errors as {@link pillar.node.sys.Errno} values.
 */
package pillar.node.sys;
