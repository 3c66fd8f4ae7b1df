/**
 * pillar-node, the worker workload: CSI Identity and Node on the kubelet plugin socket (NVMe/TCP
 * attach, mkfs, mounts). Runs with {@code java -m pillar.node/pillar.node.NodeMain}.
 *
 * <p>Exports nothing: the mount and initiator code is internal to this module.
 */
module pillar.node {
    requires pillar.api;
    requires io.helidon.logging.common;
    requires java.logging;
}
