/**
 * Mounts: the {@link pillar.node.mount.Mounter} port and its JNA adapter, the mount table
 * ({@code /proc/self/mountinfo}) parser, and the mount-flag allow-list.
 */
package pillar.node.mount;
