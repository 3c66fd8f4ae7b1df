package pillar.node.config;

import java.nio.file.Path;
import java.time.Duration;
import java.time.format.DateTimeParseException;

import io.helidon.config.Config;
import pillar.api.value.InvalidValueException;
import pillar.api.value.NodeId;

/**
 * The node's configuration, read once at start and checked: a bad one refuses to start with a
 * message that says what to fix. Every kernel root is here, so tests can point them at fake trees.
 *
 * <pre>
 * node:
 *   id: worker-1                         # required: the Kubernetes node name (NodeGetInfo)
 *   state-dir: /var/lib/pillar-csi/node  # stage records
 *   kubelet-dir: /var/lib/kubelet        # every staging and target path must be below it
 *   sys-root: /sys
 *   dev-root: /dev
 *   mountinfo: /proc/self/mountinfo
 *   hostnqn-file: /etc/nvme/hostnqn      # generated once if absent
 *   fabrics-device: /dev/nvme-fabrics
 *   attach-timeout: PT60S                # how long NodeStageVolume waits for the block device (ISO-8601 or seconds)
 *   kernel-timeout: PT60S                # how long one mount, unmount or fabrics connect/disconnect is waited for
 * </pre>
 */
public record NodeConfig(NodeId nodeId, Path stateDir, Path kubeletDir, Path sysRoot, Path devRoot, Path mountinfo,
                         Path hostNqnFile, Path fabricsDevice, Duration attachTimeout, Duration kernelTimeout) {
    public static final Duration DEFAULT_ATTACH_TIMEOUT = Duration.ofSeconds(60);
    /**
     * Long enough for a connect or a journal replay on a slow host, short enough that the CSI call
     * answers before kubelet's own two-minute deadline for it.
     */
    public static final Duration DEFAULT_KERNEL_TIMEOUT = Duration.ofSeconds(60);

    public NodeConfig {
        for (Path path : new Path[] {stateDir, kubeletDir, sysRoot, devRoot, mountinfo, hostNqnFile, fabricsDevice}) {
            if (!path.isAbsolute() || !path.normalize().equals(path)) {
                throw new IllegalArgumentException("node paths must be absolute and normalized, " + path + " is not");
            }
        }
        if (kubeletDir.getNameCount() == 0) {
            throw new IllegalArgumentException("node.kubelet-dir must not be /");
        }
        checkTimeout("node.attach-timeout", attachTimeout);
        checkTimeout("node.kernel-timeout", kernelTimeout);
    }

    private static void checkTimeout(String key, Duration timeout) {
        if (timeout.isNegative() || timeout.isZero() || timeout.compareTo(Duration.ofHours(1)) > 0) {
            throw new IllegalArgumentException(key + " must be more than 0 and at most 1 hour, is " + timeout);
        }
    }

    public static NodeConfig from(Config root) {
        Config node = root.get("node");
        String id = node.get("id").asString().orElseThrow(() -> new IllegalArgumentException(
                "node.id is required: the Kubernetes node name of this worker (in the DaemonSet: "
                        + "--node.id=$(NODE_NAME) from the downward API spec.nodeName)"));
        NodeId nodeId;
        try {
            nodeId = NodeId.of(id);
        } catch (InvalidValueException e) {
            throw new IllegalArgumentException("node.id is not a valid node name: " + e.getMessage(), e);
        }
        return new NodeConfig(nodeId,
                path(node, "state-dir", "/var/lib/pillar-csi/node"),
                path(node, "kubelet-dir", "/var/lib/kubelet"),
                path(node, "sys-root", "/sys"),
                path(node, "dev-root", "/dev"),
                path(node, "mountinfo", "/proc/self/mountinfo"),
                path(node, "hostnqn-file", "/etc/nvme/hostnqn"),
                path(node, "fabrics-device", "/dev/nvme-fabrics"),
                duration(node, "attach-timeout", DEFAULT_ATTACH_TIMEOUT),
                duration(node, "kernel-timeout", DEFAULT_KERNEL_TIMEOUT));
    }

    private static Path path(Config node, String key, String fallback) {
        String value = node.get(key).asString().orElse(fallback);
        Path path = Path.of(value);
        if (!path.isAbsolute()) {
            throw new IllegalArgumentException("node." + key + " must be an absolute path, is " + value);
        }
        return path.normalize();
    }

    private static Duration duration(Config node, String key, Duration fallback) {
        String text = node.get(key).asString().orElse("");
        try {
            return text.isEmpty() ? fallback : duration(text);
        } catch (DateTimeParseException e) {
            throw new IllegalArgumentException("node." + key + " must be seconds (60) or ISO-8601 (PT60S), is " + text, e);
        }
    }

    /** ISO-8601 ({@code PT90S}) or plain seconds ({@code 90}). */
    static Duration duration(String text) {
        return text.matches("[0-9]{1,5}") ? Duration.ofSeconds(Long.parseLong(text)) : Duration.parse(text);
    }
}
