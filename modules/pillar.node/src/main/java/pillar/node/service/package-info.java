/**
 * The CSI Node service: the gRPC adapter, request validation, per-volume locking, and the logic of
 * stage, publish, expand and stats over the ports of {@code pillar.node.attach} (one attacher per
 * protocol), {@code pillar.node.mount}, {@code pillar.node.nvme} and {@code pillar.node.fs} and the records
 * of {@code pillar.node.stage}.
 */
package pillar.node.service;
