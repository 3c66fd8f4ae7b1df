package pillar.api.context;

/**
 * The keys of the CSI {@code publish_context} that ControllerPublishVolume returns and the node
 * receives in NodeStageVolume and NodePublishVolume: everything the initiator needs to connect.
 * The node validates every value before use (an NQN through {@link pillar.api.value.Nqn}, an
 * address as an IP literal, numbers in range).
 */
public final class PublishContext {
    /** The subsystem NQN of the volume's export. */
    public static final String NQN = "nqn";
    /** Transport; "tcp" is the only one that ships. */
    public static final String TRANSPORT = "transport";
    /** The target's IP address literal (IPv4 or IPv6), never a host name. */
    public static final String TRADDR = "traddr";
    /** The target's TCP port. */
    public static final String TRSVCID = "trsvcid";
    /** Seconds the initiator keeps retrying a lost controller before failing I/O (kernel ctrl_loss_tmo; -1 forever). */
    public static final String CTRL_LOSS_TMO = "ctrlLossTmo";
    /** Seconds between reconnect attempts (kernel reconnect_delay). */
    public static final String RECONNECT_DELAY = "reconnectDelay";
    /** I/O queues to request (kernel nr_io_queues); absent means the kernel's default. */
    public static final String NR_IO_QUEUES = "nrIoQueues";
    /**
     * {@value #AUTH_DHCHAP} when the target requires NVMe in-band authentication of this host: the node
     * then connects as {@link #HOST_NQN} with {@link #DHCHAP_SECRET} (and {@link #DHCHAP_CTRL_SECRET}), or,
     * for a publication made by a version before per-publication keys (no {@link #HOST_NQN}), as itself
     * with the secrets of {@link StageSecrets}; it refuses to stage without them. Absent: no authentication.
     */
    public static final String AUTH = "auth";
    /**
     * The host NQN this publication connects as ({@link PublicationHost}): the one host the target admits
     * with this publication's keys. Present with {@link #AUTH} since per-publication keys.
     */
    public static final String HOST_NQN = "hostNqn";
    /**
     * The publication's DH-HMAC-CHAP host secret ({@code dhchap_secret}), made for this node and this
     * volume only: the publish context is the one channel Kubernetes gives to the publication's node
     * alone (its VolumeAttachment). The node never logs or records it.
     */
    public static final String DHCHAP_SECRET = "dhchapSecret";
    /** The publication's controller secret ({@code dhchap_ctrl_secret}): the host checks the target with it. */
    public static final String DHCHAP_CTRL_SECRET = "dhchapCtrlSecret";
    /** The value of {@link #AUTH} for DH-HMAC-CHAP. */
    public static final String AUTH_DHCHAP = "dhchap";
    /**
     * {@value #TLS_13} when the target's port admits NVMe/TCP over TLS 1.3 only: the node then connects with
     * {@code tls} and {@link #TLS_PSK}, put into a keyring of its own under the identity of the host NQN it
     * connects as ({@link #HOST_NQN}, else its own) and {@link #NQN}; it refuses to stage on a kernel without
     * NVMe/TCP TLS or without the key. On an NFS volume ({@link #PROTOCOL_NFS}): the export admits RPC-with-TLS only,
     * and the node mounts with {@code xprtsec=tls} (the server's certificate checked by the node's tlshd; no key here).
     * Absent: plaintext.
     */
    public static final String TLS = "tls";
    /** The value of {@link #TLS}: TLS 1.3 (NVMe/TCP with a pre-shared key, NFS with the server's certificate). */
    public static final String TLS_13 = "tls1.3";
    /**
     * The publication's TLS pre-shared key ({@link pillar.api.value.TlsPsk}), made for this node and this volume
     * only, as {@link #DHCHAP_SECRET} is. The node never logs or records it.
     */
    public static final String TLS_PSK = "tlsPsk";
    /** {@value #PROTOCOL_NFS} for an NFS volume; absent means NVMe-oF/TCP (the keys above). */
    public static final String PROTOCOL = "protocol";
    /** The value of {@link #PROTOCOL} for NFSv4.2: the node mounts {@link #NFS_EXPORT} from {@link #NFS_SERVER}. */
    public static final String PROTOCOL_NFS = "nfs";
    /** The NFS server's IP address literal (IPv4 or IPv6), never a host name. */
    public static final String NFS_SERVER = "nfsServer";
    /** The absolute path the server exports (the dataset's mountpoint on the storage node). */
    public static final String NFS_EXPORT = "nfsExport";
    /**
     * This node's own IP address literal as the server knows it (from its Node object): the mount's
     * {@code clientaddr}, and the one address the export admits for this node.
     */
    public static final String NFS_CLIENT_ADDRESS = "nfsClientAddress";

    private PublishContext() {
    }
}
