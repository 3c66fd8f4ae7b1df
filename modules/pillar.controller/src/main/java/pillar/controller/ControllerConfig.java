package pillar.controller;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.helidon.config.Config;
import pillar.runtime.metrics.WorkloadMetrics;
import pillar.runtime.server.CsiEndpoint;
import pillar.controller.agent.AgentTlsFiles;
import pillar.controller.agent.GrpcAgentClient;
import pillar.controller.crd.Grammars;
import pillar.controller.leader.LeaderElectionSettings;
import pillar.controller.reconcile.loop.Backoff;
import pillar.controller.reconcile.ReconcileSettings;

/**
 * The controller's configuration (file, environment, flags: see {@link pillar.runtime.server.WorkloadConfig}).
 *
 * <table>
 *   <caption>keys</caption>
 *   <tr><td>{@code csi.socket}, {@code health.host}, {@code health.port}</td><td>as every workload (health 9808)</td></tr>
 *   <tr><td>{@code metrics.enabled}</td><td>serve Prometheus metrics at {@code /metrics} on the health port (true)</td></tr>
 *   <tr><td>{@code kubernetes.kubeconfig}</td><td>a kubeconfig file; unset: in-cluster (the pod's service account)</td></tr>
 *   <tr><td>{@code kubernetes.context}</td><td>the kubeconfig context; unset: its current context</td></tr>
 *   <tr><td>{@code controller.namespace}</td><td>where events are recorded; unset: the client's namespace (in a pod, its own)</td></tr>
 *   <tr><td>{@code controller.poll-interval}</td><td>how often agents and pools are asked again (30s)</td></tr>
 *   <tr><td>{@code controller.backoff-initial}, {@code controller.backoff-max}</td><td>retry delays after failures (1s, 2m)</td></tr>
 *   <tr><td>{@code controller.resync}</td><td>every object is reconciled at least this often (10m)</td></tr>
 *   <tr><td>{@code controller.abandoned-create-grace}</td><td>how old a create that never completed, whose claim is gone,
 *       must be before the controller removes it with its volume and export (10m: longer than the provisioner's longest
 *       retry interval, 5m, plus its call timeout, so that a create the provisioner still drives is never raced)</td></tr>
 *   <tr><td>{@code agents.tls.cert}, {@code agents.tls.key}, {@code agents.tls.ca}</td><td>PEM files for mutual TLS with
 *       agents: all three or none</td></tr>
 *   <tr><td>{@code agents.deadline}</td><td>the deadline of each attempt of an agent read (10s)</td></tr>
 *   <tr><td>{@code agents.mutation-deadline}</td><td>the deadline of an agent call that changes anything (120s);
 *       longer than the agent's own bound on a call (90s), or the controller refuses to start</td></tr>
 *   <tr><td>{@code agents.read-attempts}</td><td>attempts of a read while the agent is unreachable (3)</td></tr>
 *   <tr><td>{@code controller.leader-election.enabled}</td><td>elect one acting replica with a Lease (true); false
 *       only with a single replica</td></tr>
 *   <tr><td>{@code controller.leader-election.lease}</td><td>the Lease's name in controller.namespace (pillar-controller)</td></tr>
 *   <tr><td>{@code controller.leader-election.identity}</td><td>this replica's holder identity (the POD_NAME
 *       environment variable, else the host name, with a random suffix)</td></tr>
 *   <tr><td>{@code controller.leader-election.lease-duration}, {@code .renew-deadline}, {@code .retry-period}</td>
 *       <td>15s, 10s, 2s</td></tr>
 * </table>
 * Durations are written {@code 500ms}, {@code 30s}, {@code 2m}, {@code 1h} or ISO-8601 ({@code PT30S}).
 */
public record ControllerConfig(CsiEndpoint endpoint, Optional<Path> kubeconfig, Optional<String> context,
                               Optional<String> namespace, ReconcileSettings reconcile, Optional<AgentTlsFiles> agentTls,
                               GrpcAgentClient.Settings agentSettings, LeaderElectionSettings leaderElection,
                               Duration abandonedCreateGrace, WorkloadMetrics metrics) {
    /** Health port (the controller runs in its own network namespace). */
    public static final int DEFAULT_HEALTH_PORT = 9808;
    /** See {@code controller.abandoned-create-grace}. */
    public static final Duration DEFAULT_ABANDONED_CREATE_GRACE = Duration.ofMinutes(10);
    private static final Pattern SHORT_DURATION = Pattern.compile("^([0-9]{1,9})(ms|s|m|h)$");

    public ControllerConfig {
        kubeconfig.ifPresent(file -> {
            if (!Files.isReadable(file)) {
                throw new IllegalArgumentException("kubernetes.kubeconfig: " + file + " is not a readable file");
            }
        });
        namespace.ifPresent(ns -> {
            if (!Grammars.isLabel(ns)) {
                throw new IllegalArgumentException("controller.namespace must be a namespace name (RFC 1123 label), is "
                        + Grammars.printable(ns));
            }
        });
        if (!abandonedCreateGrace.isPositive()) {
            throw new IllegalArgumentException("controller.abandoned-create-grace must be positive, is " + abandonedCreateGrace);
        }
    }

    /** Reads and checks every key; a bad value is an {@link IllegalArgumentException} naming it. */
    public static ControllerConfig from(Config root) {
        ReconcileSettings defaults = ReconcileSettings.defaults();
        GrpcAgentClient.Settings agentDefaults = GrpcAgentClient.Settings.defaults();
        Config tls = root.get("agents.tls");
        Optional<String> cert = tls.get("cert").asString().asOptional();
        Optional<String> key = tls.get("key").asString().asOptional();
        Optional<String> ca = tls.get("ca").asString().asOptional();
        Optional<AgentTlsFiles> agentTls;
        if (cert.isEmpty() && key.isEmpty() && ca.isEmpty()) {
            agentTls = Optional.empty();
        } else if (cert.isPresent() && key.isPresent() && ca.isPresent()) {
            agentTls = Optional.of(new AgentTlsFiles(Path.of(cert.get()), Path.of(key.get()), Path.of(ca.get())));
        } else {
            throw new IllegalArgumentException("agents.tls needs all of cert, key and ca, or none of them (plaintext)");
        }
        int attempts;
        try {
            attempts = root.get("agents.read-attempts").asInt().orElse(agentDefaults.readAttempts());
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("agents.read-attempts must be a number: " + e.getMessage(), e);
        }
        return new ControllerConfig(
                CsiEndpoint.from(root, DEFAULT_HEALTH_PORT),
                root.get("kubernetes.kubeconfig").asString().asOptional().map(Path::of),
                root.get("kubernetes.context").asString().asOptional(),
                root.get("controller.namespace").asString().asOptional(),
                new ReconcileSettings(
                        duration(root, "controller.poll-interval", defaults.pollInterval()),
                        new Backoff(duration(root, "controller.backoff-initial", defaults.backoff().initial()),
                                duration(root, "controller.backoff-max", defaults.backoff().max())),
                        duration(root, "controller.resync", defaults.resync())),
                agentTls,
                agentSettings(root, agentDefaults, attempts),
                leaderElection(root.get("controller.leader-election")),
                duration(root, "controller.abandoned-create-grace", DEFAULT_ABANDONED_CREATE_GRACE),
                WorkloadMetrics.from(root, "controller"));
    }

    private static GrpcAgentClient.Settings agentSettings(Config root, GrpcAgentClient.Settings defaults, int attempts) {
        Duration mutation = duration(root, "agents.mutation-deadline", defaults.mutationDeadline());
        if (mutation.compareTo(GrpcAgentClient.AGENT_CALL_BOUND) <= 0) {
            throw new IllegalArgumentException("agents.mutation-deadline must be longer than the agent's own bound on a call ("
                    + GrpcAgentClient.AGENT_CALL_BOUND.toSeconds() + "s), so that the agent's answer is what is recorded; is "
                    + mutation.toMillis() + "ms");
        }
        return new GrpcAgentClient.Settings(duration(root, "agents.deadline", defaults.deadline()), mutation, attempts,
                defaults.retryPause());
    }

    private static LeaderElectionSettings leaderElection(Config election) {
        String identity = election.get("identity").asString().orElseGet(ControllerConfig::defaultIdentity);
        LeaderElectionSettings defaults = LeaderElectionSettings.defaults(identity);
        boolean enabled;
        try {
            enabled = election.get("enabled").asBoolean().orElse(true);
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("controller.leader-election.enabled must be true or false", e);
        }
        return new LeaderElectionSettings(enabled,
                election.get("lease").asString().orElse(defaults.lease()), identity,
                duration(election, "lease-duration", defaults.leaseDuration(), "controller.leader-election."),
                duration(election, "renew-deadline", defaults.renewDeadline(), "controller.leader-election."),
                duration(election, "retry-period", defaults.retryPeriod(), "controller.leader-election."));
    }

    /** The pod's name (downward API), else the host name, with a random suffix: unique across restarts. */
    private static String defaultIdentity() {
        String name = System.getenv("POD_NAME");
        if (name == null || name.isBlank()) {
            try {
                name = java.net.InetAddress.getLocalHost().getHostName();
            } catch (java.net.UnknownHostException e) {
                name = "pillar-controller";
            }
        }
        String suffix = java.util.UUID.randomUUID().toString().substring(0, 8);
        return (name.length() > 100 ? name.substring(0, 100) : name) + "_" + suffix;
    }

    private static Duration duration(Config section, String key, Duration fallback, String prefix) {
        try {
            return duration(section, key, fallback);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(prefix + e.getMessage(), e);
        }
    }

    /** A duration key: {@code 500ms}, {@code 30s}, {@code 2m}, {@code 1h} or ISO-8601. */
    static Duration duration(Config root, String key, Duration fallback) {
        Optional<String> value = root.get(key).asString().asOptional();
        if (value.isEmpty()) {
            return fallback;
        }
        Matcher m = SHORT_DURATION.matcher(value.get());
        if (m.matches()) {
            long n = Long.parseLong(m.group(1));
            return switch (m.group(2)) {
                case "ms" -> Duration.ofMillis(n);
                case "s" -> Duration.ofSeconds(n);
                case "m" -> Duration.ofMinutes(n);
                default -> Duration.ofHours(n);
            };
        }
        try {
            return Duration.parse(value.get());
        } catch (DateTimeParseException e) {
            throw new IllegalArgumentException(key + " must be a duration like 500ms, 30s, 2m, 1h or PT30S, is "
                    + Grammars.printable(value.get()), e);
        }
    }
}
