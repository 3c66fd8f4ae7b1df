/**
 * pillar-node, the worker workload: CSI Identity and Node on the kubelet plugin socket (NVMe/TCP
 * attach, mkfs, mounts). Runs with {@code java -m pillar.node/pillar.node.NodeMain}.
 *
 * <p>Exports nothing: the mount and initiator code is internal to this module. It needs the native
 * access of JNA ({@code --enable-native-access=com.sun.jna} silences the JDK's warning) for
 * {@code mount(2)}, {@code umount2(2)}, {@code statfs(2)} and the fabrics device.
 */
module pillar.node {
    requires pillar.api;
    requires pillar.runtime;
    requires com.sun.jna;
    requires io.helidon.logging.common;
    requires java.logging;
}
