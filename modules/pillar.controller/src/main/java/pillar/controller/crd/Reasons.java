package pillar.controller.crd;

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
    /** No answer from the agent (down, wrong address, TLS refused, deadline passed). */
    public static final String AGENT_UNREACHABLE = "AgentUnreachable";
    /** The agent answered with an error. */
    public static final String AGENT_ERROR = "AgentError";

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

    /** Valid true. */
    public static final String VALID = "Valid";

    /** StorageClassCreated true: the StorageClass exists as the spec says. */
    public static final String CREATED = "Created";
    /** The PillarStore named does not exist. */
    public static final String STORE_NOT_FOUND = "StoreNotFound";
    /** The PillarProtocol named does not exist. */
    public static final String PROTOCOL_NOT_FOUND = "ProtocolNotFound";
    /** A StorageClass of that name exists and is not ours: it is never touched. */
    public static final String NAME_CONFLICT = "NameConflict";
    /** The Kubernetes API refused or failed a request; retried. */
    public static final String API_ERROR = "ApiError";

    private Reasons() {
    }
}
