package pillar.node.mount;

import java.util.Map;
import java.util.regex.Pattern;

import pillar.api.context.PublishContext;
import pillar.api.value.InvalidValueException;
import pillar.node.sys.IpLiteral;

/**
 * An NFSv4.2 export of a dataset as this node mounts it, validated before any value reaches
 * {@code mount(2)}: server and client are IP literals, the path is absolute and normalized, not the
 * server's root, of the characters {@code [A-Za-z0-9._+-/]} only (so never a ',' or '=' that would
 * split or add a kernel option, nor a ':' that would move the source's separator).
 *
 * <p>The options ({@link #data}) are fixed by the driver, never by a StorageClass: {@code hard}, so
 * the client retries a lost server forever instead of failing writes a pod believes done (a soft
 * mount turns a server restart into EIO and lost page-cache writes); {@code timeo=600,retrans=2}
 * (60 s per RPC, nfs(5)'s TCP values, spelled out so a kernel default cannot change them). A call
 * that waits on a dead server is bounded by the node's {@link DeadlineMounter}, not by the mount.
 *
 * <p>{@code tls}: the export admits RPC-with-TLS only, and the mount adds {@code xprtsec=tls} (the kernel asks the
 * node's tlshd for the handshake, which checks the server's certificate); the mount table must then show it.
 */
public record NfsExport(String server, String path, String client, boolean tls) {
    /** The filesystem type of the mount, as {@code mount(2)} and {@code /proc/self/mountinfo} name it. */
    public static final String FS_TYPE = "nfs4";
    /** The kernel's own bound on an NFS path (NFS4_MAXPATHLEN is larger; a dataset path never is). */
    private static final int MAX_PATH = 1024;
    private static final Pattern PATH = Pattern.compile("(/[A-Za-z0-9._+-]{1,255})+");
    private static final String OPTIONS = "vers=4.2,hard,timeo=600,retrans=2,sec=sys";

    public NfsExport {
        IpLiteral.check(PublishContext.NFS_SERVER, server);
        IpLiteral.check(PublishContext.NFS_CLIENT_ADDRESS, client);
        checkPath(path);
    }

    /** A plaintext export. */
    public NfsExport(String server, String path, String client) {
        this(server, path, client, false);
    }

    /**
     * The export of a publish context with {@code protocol=nfs}; every key but {@link PublishContext#TLS} is required,
     * which is absent or {@link PublishContext#TLS_13}.
     */
    public static NfsExport fromPublishContext(Map<String, String> context) {
        String tls = context.get(PublishContext.TLS);
        if (tls != null && !tls.equals(PublishContext.TLS_13)) {
            throw new InvalidValueException("publish_context." + PublishContext.TLS, "must be " + PublishContext.TLS_13
                    + " or absent, is '" + tls.replaceAll("[^\\x20-\\x7e]", "?") + "'");
        }
        return new NfsExport(required(context, PublishContext.NFS_SERVER), required(context, PublishContext.NFS_EXPORT),
                required(context, PublishContext.NFS_CLIENT_ADDRESS), tls != null);
    }

    /** The mount source: {@code 10.0.0.5:/tank/v1}, {@code [fd00::5]:/tank/v1}. */
    public String source() {
        return (IpLiteral.isIpv6(server) ? "[" + server + "]" : server) + ":" + path;
    }

    /** The data string of {@code mount(2)}: the driver's options, then the server's and the client's address. */
    public String data() {
        return OPTIONS + (tls ? ",xprtsec=tls" : "") + ",addr=" + server + ",clientaddr=" + client;
    }

    /**
     * Whether a mount table entry is this export mounted by this node: type nfs4, this source, the superblock's
     * {@code addr=} and {@code clientaddr=} as given, and {@code xprtsec=tls} exactly when over TLS.
     */
    public boolean matches(MountEntry entry) {
        if (!entry.fsType().equals(FS_TYPE) || !entry.source().equals(source())) {
            return false;
        }
        boolean addr = false;
        boolean clientaddr = false;
        boolean overTls = false;
        for (String option : entry.superOptions().split(",")) {
            addr |= option.startsWith("addr=") && IpLiteral.same(option.substring(5), server);
            clientaddr |= option.startsWith("clientaddr=") && IpLiteral.same(option.substring(11), client);
            overTls |= option.equals("xprtsec=tls");
        }
        return addr && clientaddr && overTls == tls;
    }

    /** For messages: {@code nfs4 10.0.0.5:/tank/v1}, {@code nfs4 10.0.0.5:/tank/v1 over TLS}. */
    public String describe() {
        return FS_TYPE + " " + source() + (tls ? " over TLS" : "");
    }

    private static void checkPath(String path) {
        String field = "publish_context." + PublishContext.NFS_EXPORT;
        if (path == null || path.isEmpty()) {
            throw new InvalidValueException(field, "must not be empty");
        }
        if (path.length() > MAX_PATH || !PATH.matcher(path).matches()) {
            throw new InvalidValueException(field, "must be an absolute path below / of at most " + MAX_PATH
                    + " characters from [A-Za-z0-9._+-/], without an empty component");
        }
        for (String component : path.substring(1).split("/")) {
            if (component.equals(".") || component.equals("..")) {
                throw new InvalidValueException(field, "must be normalized (no . or .. components)");
            }
        }
    }

    private static String required(Map<String, String> context, String key) {
        String value = context.get(key);
        if (value == null || value.isEmpty()) {
            throw new InvalidValueException("publish_context." + key, "is required for an NFS volume (did ControllerPublishVolume run?)");
        }
        return value;
    }
}
