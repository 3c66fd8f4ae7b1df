package pillar.node.attach;

import java.util.Map;

import pillar.api.context.PublishContext;
import pillar.api.value.InvalidValueException;

/** The protocol a volume is attached by, as its publish context names it ({@link PublishContext#PROTOCOL}). */
public enum Protocol {
    /** NVMe-oF/TCP: the publish context has no protocol key. */
    NVME_TCP,
    /** NFSv4.2: {@code protocol=nfs}. */
    NFS;

    /** The protocol a publish context names; a protocol value this node does not serve is refused. */
    public static Protocol of(Map<String, String> publishContext) {
        String protocol = publishContext.get(PublishContext.PROTOCOL);
        if (protocol == null || protocol.isEmpty()) {
            return NVME_TCP;
        }
        if (!protocol.equals(PublishContext.PROTOCOL_NFS)) {
            throw new InvalidValueException("publish_context." + PublishContext.PROTOCOL, "must be "
                    + PublishContext.PROTOCOL_NFS + " or absent (NVMe-oF/TCP)");
        }
        return NFS;
    }
}
