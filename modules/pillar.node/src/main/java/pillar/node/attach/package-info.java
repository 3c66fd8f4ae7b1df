/**
 * Attaching a volume to this node, one {@link pillar.node.attach.Attacher} per protocol (NVMe-oF/TCP,
 * NFS): turn a publish context into something to stage, tell whether it is still attached, detach it.
 * The service's stage logic works through this port; what a protocol needs of the kernel stays in
 * {@code pillar.node.nvme} and {@code pillar.node.mount}.
 */
package pillar.node.attach;
