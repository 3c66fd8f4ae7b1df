/**
 * The NVMe/TCP initiator without nvme-cli: the {@link pillar.node.nvme.Initiator} port and its
 * {@code /dev/nvme-fabrics} adapter, the validated publish context, the fabrics options string, the
 * sysfs reader that finds controllers and head block devices, and the host NQN.
 */
package pillar.node.nvme;
