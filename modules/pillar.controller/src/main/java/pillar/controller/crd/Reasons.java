package pillar.controller.crd;

import java.util.regex.Pattern;

/**
 * The reasons of the Pillar conditions: CamelCase words an operator can search the docs and
 * events for. The message beside each says the details.
 */
public final class Reasons {
    /** The spec failed a check; the message lists every problem. Fix the spec. */
    public static final String INVALID_SPEC = "InvalidSpec";

    /** AgentConnected true: the agent answered GetCapabilities. */
    public static final String CONNECTED = "Connected";
    /** The PillarAgent names a node that does not exist. */
    public static final String NODE_NOT_FOUND = "NodeNotFound";
    /** The node reports no InternalIP address to dial. */
    public static final String NODE_ADDRESS_UNKNOWN = "NodeAddressUnknown";
    /** tls.mode is secret but the controller was installed without agent TLS files. */
    public static final String TLS_NOT_CONFIGURED = "TlsNotConfigured";
    /** The controller has agent TLS files and the PillarAgent names no {@code tls}: never dialled in plaintext by default. */
    public static final String TLS_REQUIRED = "TlsRequired";
    /**
     * An older PillarAgent dialled with mutual TLS verifies the same name in its agent's certificate: a certificate
     * for that name would answer for both storage nodes, so the newer one is not dialled.
     */
    public static final String SERVER_NAME_SHARED = "ServerNameShared";
    /**
     * The agent and this controller speak agent API levels that do not work together
     * ({@code pillar.api.agent.AgentApiLevel}); the message says which side to upgrade. Its volumes' calls are
     * refused FAILED_PRECONDITION until then.
     */
    public static final String AGENT_API_MISMATCH = "AgentApiMismatch";
    /** The PillarAgent says {@code tls.mode: none} although the controller could dial it with mutual TLS. */
    public static final String TLS_MODE_NONE = "TlsModeNone";
    /** The agent is dialled with mutual TLS. */
    public static final String MUTUAL_TLS = "MutualTls";
    /** No answer from the agent (down, wrong address, TLS refused, deadline passed). */
    public static final String AGENT_UNREACHABLE = "AgentUnreachable";
    /** The agent answered with an error. */
    public static final String AGENT_ERROR = "AgentError";
    /**
     * The agent found live pillar-csi exports but no identity in its state directory: it keeps them,
     * and admits no lifecycle call until an operator recovers the state (the README's recovery).
     */
    public static final String AGENT_STATE_MISSING = "AgentStateMissing";
    /** DamagedRecords true: the agent found export records or fencing marks it cannot read, left for an operator. */
    public static final String RECORDS_DAMAGED = "RecordsDamaged";
    /** DamagedRecords false: every durable record of the agent reads whole. */
    public static final String RECORDS_INTACT = "RecordsIntact";

    /** PoolDiscovered true: the agent has the backend with this layout and reported its capacity. */
    public static final String DISCOVERED = "Discovered";
    /** The store names a PillarAgent that does not exist. */
    public static final String AGENT_NOT_FOUND = "AgentNotFound";
    /** The agent has no backend of the store's name. */
    public static final String BACKEND_NOT_FOUND = "BackendNotFound";
    /** The agent's backend of that name has another kind, pool, parent dataset or thin pool. */
    public static final String BACKEND_LAYOUT_MISMATCH = "BackendLayoutMismatch";
    /** PoolDiscovered: the agent answers, but the pool or volume group of the backend is missing or unusable. */
    public static final String POOL_UNAVAILABLE = "PoolUnavailable";
    /**
     * PoolDiscovered false: the backend is an LVM thin pool that does not zero new chunks (a new volume
     * could show a deleted one's bytes), and the store does not set {@code lvm.acceptNonZeroingThinPool}.
     */
    public static final String THIN_POOL_NOT_ZEROING = "ThinPoolNotZeroing";

    /** Valid true. */
    public static final String VALID = "Valid";
    /** OrphanVolumes: the agent has volumes or exports of the store's backend that no PillarVolumeState claims. */
    public static final String ORPHANS_FOUND = "OrphansFound";
    /** OrphanVolumes false: every volume and export is claimed. */
    public static final String NO_ORPHANS = "NoOrphans";

    /** StorageClassCreated true: the StorageClass exists as the spec says. */
    public static final String CREATED = "Created";
    /** The PillarStore named does not exist. */
    public static final String STORE_NOT_FOUND = "StoreNotFound";
    /** The PillarProtocol named does not exist. */
    public static final String PROTOCOL_NOT_FOUND = "ProtocolNotFound";
    /** The class's protocol cannot serve its store's volumes (NFS on block volumes, NVMe-oF/TCP on datasets). */
    public static final String PROTOCOL_STORE_MISMATCH = "ProtocolStoreMismatch";
    /** A StorageClass of that name exists and is not ours: it is never touched. */
    public static final String NAME_CONFLICT = "NameConflict";
    /** The Kubernetes API refused or failed a request; retried. */
    public static final String API_ERROR = "ApiError";
    /** The protocol requires NVMe in-band authentication and the store's agent's kernel has none. */
    public static final String NVME_AUTH_UNSUPPORTED = "NvmeAuthUnsupported";
    /** The protocol requires NVMe/TCP TLS and the store's agent has not reported a kernel that can require it. */
    public static final String NVME_TLS_UNSUPPORTED = "NvmeTlsUnsupported";
    /** An NFS protocol requires RPC-with-TLS and the store's agent reports no nfs_tls (old kernel or nfs-utils). */
    public static final String NFS_TLS_UNSUPPORTED = "NfsTlsUnsupported";
    /** SingleNodeAccess false: the protocol's target admits any host (aclEnabled: false) and cannot fence a node. */
    public static final String ACL_DISABLED = "AclDisabled";
    /** SingleNodeAccess true: the protocol's target admits only the publications' nodes. */
    public static final String FENCED = "Fenced";
    /** SnapshotClassCreated false: the store is an LVM linear volume group, which cannot take snapshots. */
    public static final String SNAPSHOTS_UNSUPPORTED = "SnapshotsUnsupported";
    /** SnapshotClassCreated false: the cluster serves no snapshot.storage.k8s.io/v1 (its CRDs are not installed). */
    public static final String SNAPSHOT_API_MISSING = "SnapshotApiMissing";

    private static final Pattern REASON = Pattern.compile("[A-Za-z]([A-Za-z0-9_,:]{0,126}[A-Za-z0-9_])?");

    private Reasons() {
    }

    /**
     * A reason an agent reported, as a condition reason: itself when it is one (a letter, then
     * letters, digits and {@code _,:}, at most 128), else {@link #AGENT_ERROR}.
     */
    public static String fromAgent(String reason) {
        return reason != null && REASON.matcher(reason).matches() ? reason : AGENT_ERROR;
    }
}
