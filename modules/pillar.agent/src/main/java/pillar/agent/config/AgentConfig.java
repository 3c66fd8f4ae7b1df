package pillar.agent.config;

import java.io.IOException;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

import io.helidon.config.Config;
import pillar.agent.state.InstallationId;
import pillar.agent.state.StateIdentity;
import pillar.api.agent.v1.BackendKind;

/**
 * The agent's configuration, read once at start and checked: a bad configuration refuses to start
 * with a message that says what to fix.
 *
 * <pre>
 * agent:
 *   node-name: storage-1          # default: the host name; kept in the state identity
 *   installation-id: prod.pillar  # default: generated at first start, kept in the state identity
 *   listen: {host: 192.0.2.10, port: 9500}   # or host-env: PILLAR_NODE_IP (a variable holding it);
 *                                            # neither: the default route's interface ({@link ListenAddress})
 *   state-dir: /var/lib/pillar-csi/agent
 *   legacy-state-dir: /var/lib/pillar-csi/agent   # optional: where an older install kept this node's state;
 *                                                 # moved to state-dir at start ({@link pillar.agent.state.StateDirMigration})
 *   configfs-root: /sys/kernel/config
 *   tls: {cert: tls.crt, key: tls.key, ca: ca.crt,   # all three, or none (plaintext)
 *         client-names: [pillar-controller]}      # a client certificate's DNS name must be one of these
 *   backends:
 *     - {name: tank, type: zfs, pool: tank, parent-dataset: k8s}
 *     - {name: shared, type: zfs-dataset, pool: tank, parent-dataset: nfs}
 *     - {name: fast, type: lvm-thin, volume-group: vg0, thin-pool: pool0,
 *        over-provisioning-ratio: 1.0}   # the thin LVs may add up to this many times the pool's data size
 * health: {host: 192.0.2.10, port: 9810}   # host: default the agent API's address (agent.listen)
 * metrics: {enabled: true}                  # false: /metrics is not served, calls are not timed
 * server: {max-connections: 64, max-health-connections: 16, max-concurrent-calls: 128,
 *          bind-timeout-seconds: 60}        # {@link pillar.runtime.server.ServerLimits}
 * </pre>
 */
public record AgentConfig(String listenHost, int listenPort, Path stateDir, Path configfsRoot,
                          Optional<TlsFiles> tls, List<BackendConfig> backends, String healthHost, int healthPort,
                          String nodeName, Optional<InstallationId> installationId, Optional<Path> legacyStateDir) {
    public static final int DEFAULT_PORT = 9500;
    public static final int DEFAULT_HEALTH_PORT = 9810;

    public AgentConfig {
        backends = List.copyOf(backends);
        if (backends.isEmpty()) {
            throw new IllegalArgumentException("no backend configured: add at least one entry under agent.backends "
                    + "(a ZFS pool or an LVM volume group this storage node offers); the agent will not start without one");
        }
        Set<String> names = new HashSet<>();
        for (BackendConfig backend : backends) {
            if (!names.add(backend.name())) {
                throw new IllegalArgumentException("backend name '" + backend.name() + "' is configured twice");
            }
        }
        checkPort("agent.listen.port", listenPort);
        checkPort("health.port", healthPort);
        StateIdentity.checkNode(nodeName);
        legacyStateDir.ifPresent(legacy -> checkLegacyStateDir(legacy, stateDir, installationId));
    }

    /** Without a legacy state directory (nothing to move at start). */
    public AgentConfig(String listenHost, int listenPort, Path stateDir, Path configfsRoot, Optional<TlsFiles> tls,
                       List<BackendConfig> backends, String healthHost, int healthPort, String nodeName,
                       Optional<InstallationId> installationId) {
        this(listenHost, listenPort, stateDir, configfsRoot, tls, backends, healthHost, healthPort, nodeName, installationId,
                Optional.empty());
    }

    /**
     * An in-process agent's configuration (tests, benchmarks): this host's name and the
     * {@link InstallationId#EMBEDDED} installation, which {@link pillar.agent.backend.Backends#create(List,
     * pillar.runtime.exec.ProcessRunner, pillar.agent.backend.Backends.Host)} gives its backends too.
     */
    public AgentConfig(String listenHost, int listenPort, Path stateDir, Path configfsRoot, Optional<TlsFiles> tls,
                       List<BackendConfig> backends, String healthHost, int healthPort) {
        this(listenHost, listenPort, stateDir, configfsRoot, tls, backends, healthHost, healthPort, hostName(),
                Optional.of(InstallationId.EMBEDDED));
    }

    public static AgentConfig from(Config root) {
        return from(root, ListenAddress.system());
    }

    /** Reads the configuration; an unwritten listen address is found with {@code listen}. */
    public static AgentConfig from(Config root, ListenAddress listen) {
        Config agent = root.get("agent");
        List<BackendConfig> backends = new ArrayList<>();
        for (Config backend : agent.get("backends").asNodeList().orElse(List.of())) {
            backends.add(backend(backend));
        }
        String listenHost = listen.resolve(agent.get("listen.host").asString().asOptional(),
                agent.get("listen.host-env").asString().asOptional());
        return new AgentConfig(
                listenHost,
                agent.get("listen.port").asInt().orElse(DEFAULT_PORT),
                Path.of(agent.get("state-dir").asString().orElse("/var/lib/pillar-csi/agent")),
                Path.of(agent.get("configfs-root").asString().orElse("/sys/kernel/config")),
                tls(agent.get("tls")),
                backends,
                // health and metrics on the node's address too, not on every address of the host
                root.get("health.host").asString().orElse(listenHost),
                root.get("health.port").asInt().orElse(DEFAULT_HEALTH_PORT),
                agent.get("node-name").asString().orElseGet(AgentConfig::hostName),
                agent.get("installation-id").asString().asOptional().map(InstallationId::of),
                agent.get("legacy-state-dir").asString().asOptional().map(Path::of));
    }

    /**
     * This host's name ({@code /proc/sys/kernel/hostname}, no DNS), the default node name: stable
     * across restarts (in the chart the agent runs on the host network, and the chart sets it anyway).
     */
    static String hostName() {
        try {
            String name = Files.readString(Path.of("/proc/sys/kernel/hostname")).strip();
            return name.isEmpty() ? "localhost" : name;
        } catch (IOException e) {
            return "localhost";
        }
    }

    private static BackendConfig backend(Config node) {
        String name = node.get("name").asString().orElse("");
        String type = node.get("type").asString().orElse("");
        if (node.get("over-provisioning-ratio").exists() && !type.equals("lvm-thin")) {
            throw new IllegalArgumentException("backend '" + name + "': over-provisioning-ratio applies to an lvm-thin backend only,"
                    + " this one is of type '" + type + "'");
        }
        return switch (type) {
            case "zfs" -> new BackendConfig(name, BackendKind.BACKEND_KIND_ZFS_ZVOL,
                    node.get("pool").asString().orElse(""), node.get("parent-dataset").asString().orElse(""));
            case "zfs-dataset" -> new BackendConfig(name, BackendKind.BACKEND_KIND_ZFS_DATASET,
                    node.get("pool").asString().orElse(""), node.get("parent-dataset").asString().orElse(""));
            case "lvm" -> new BackendConfig(name, BackendKind.BACKEND_KIND_LVM_LINEAR,
                    node.get("volume-group").asString().orElse(""), "");
            case "lvm-thin" -> new BackendConfig(name, BackendKind.BACKEND_KIND_LVM_THIN,
                    node.get("volume-group").asString().orElse(""), node.get("thin-pool").asString().orElse(""),
                    ratio(name, node.get("over-provisioning-ratio")));
            default -> throw new IllegalArgumentException("backend '" + name + "': type must be zfs, zfs-dataset, lvm or lvm-thin, is '"
                    + type + "'");
        };
    }

    /** A thin backend's {@code over-provisioning-ratio}: a decimal number, {@link BackendConfig#DEFAULT_RATIO} when unset. */
    private static BigDecimal ratio(String name, Config value) {
        Optional<String> text = value.asString().asOptional();
        if (text.isEmpty()) {
            return BackendConfig.DEFAULT_RATIO;
        }
        try {
            return new BigDecimal(text.get().strip());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("backend '" + name + "': over-provisioning-ratio must be a decimal number like 1.0 or"
                    + " 2.5, is '" + text.get() + "'", e);
        }
    }

    private static Optional<TlsFiles> tls(Config tls) {
        Optional<String> cert = tls.get("cert").asString().asOptional();
        Optional<String> key = tls.get("key").asString().asOptional();
        Optional<String> ca = tls.get("ca").asString().asOptional();
        if (cert.isEmpty() && key.isEmpty() && ca.isEmpty()) {
            return Optional.empty();
        }
        if (cert.isEmpty() || key.isEmpty() || ca.isEmpty()) {
            throw new IllegalArgumentException("agent.tls needs all of cert, key and ca (mTLS), or none of them (plaintext)");
        }
        List<String> clientNames = tls.get("client-names").asList(String.class).orElse(TlsFiles.DEFAULT_CLIENT_NAMES);
        TlsFiles files = new TlsFiles(Path.of(cert.get()), Path.of(key.get()), Path.of(ca.get()), clientNames);
        for (Path file : List.of(files.cert(), files.key(), files.ca())) {
            if (!Files.isReadable(file)) {
                throw new IllegalArgumentException("agent.tls: cannot read " + file);
            }
        }
        return Optional.of(files);
    }

    /**
     * The legacy state directory is moved by one rename onto the state directory, and only when its
     * identity names this installation: it must be an absolute path of its own, apart from the state
     * directory, and the installation must be configured.
     */
    private static void checkLegacyStateDir(Path legacy, Path stateDir, Optional<InstallationId> installationId) {
        if (!legacy.isAbsolute() || !legacy.normalize().equals(legacy)) {
            throw new IllegalArgumentException("agent.legacy-state-dir must be an absolute path without . or .. (e.g. "
                    + "/var/lib/pillar-csi/agent), is '" + legacy + "'");
        }
        Path state = stateDir.toAbsolutePath().normalize();
        if (legacy.startsWith(state) || state.startsWith(legacy)) {
            throw new IllegalArgumentException("agent.legacy-state-dir " + legacy + " and agent.state-dir " + state
                    + " must be apart (neither the same nor one inside the other): the legacy directory is moved onto the"
                    + " state directory; leave agent.legacy-state-dir out when the state stays where it is");
        }
        if (installationId.isEmpty()) {
            throw new IllegalArgumentException("agent.legacy-state-dir needs agent.installation-id: the agent moves the"
                    + " legacy directory only when its identity names this installation");
        }
    }

    private static void checkPort(String key, int port) {
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException(key + " must be 0 to 65535, is " + port);
        }
    }

    /**
     * PEM files for mTLS: this agent's certificate and key, the CA bundle that signs its clients,
     * and the names a client certificate must carry one of (subjectAltName DNS).
     */
    public record TlsFiles(Path cert, Path key, Path ca, List<String> clientNames) {
        /** The controller's name in the chart's default install ({@code tls.controllerName}). */
        public static final List<String> DEFAULT_CLIENT_NAMES = List.of("pillar-controller");

        public TlsFiles {
            clientNames = List.copyOf(clientNames);
            if (clientNames.isEmpty() || clientNames.stream().anyMatch(String::isBlank)) {
                throw new IllegalArgumentException("agent.tls.client-names must list at least one non-empty name (the "
                        + "DNS name in the controller's client certificate), is " + clientNames);
            }
        }

        /** The files with {@link #DEFAULT_CLIENT_NAMES}. */
        public TlsFiles(Path cert, Path key, Path ca) {
            this(cert, key, ca, DEFAULT_CLIENT_NAMES);
        }
    }
}
