package pillar.chart;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;
import java.util.concurrent.ConcurrentHashMap;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;

/**
 * The cluster Helm's {@code lookup} reads while the chart is rendered. helm-java's template and
 * client-only install still call the API for lookup (Helm's own {@code helm template} does not), so
 * every rendering here goes to this server: the v1 discovery document, and GET of the Secrets a
 * test put, 404 for anything else (lookup then finds nothing, as on an empty cluster). The build
 * points KUBECONFIG at {@code pillar.chart.kubeconfig}, written here with the server's port.
 */
final class FakeKubeApi {
    /** The kinds the chart renders, by group version: what a real API server's discovery lists. */
    private static final Map<String, List<String[]>> KINDS = Map.of(
            "v1", List.of(kind("secrets", "Secret", true), kind("configmaps", "ConfigMap", true),
                    kind("serviceaccounts", "ServiceAccount", true), kind("services", "Service", true)),
            "apps/v1", List.of(kind("deployments", "Deployment", true), kind("daemonsets", "DaemonSet", true)),
            "rbac.authorization.k8s.io/v1", List.of(kind("clusterroles", "ClusterRole", false),
                    kind("clusterrolebindings", "ClusterRoleBinding", false), kind("roles", "Role", true),
                    kind("rolebindings", "RoleBinding", true)),
            "storage.k8s.io/v1", List.<String[]>of(kind("csidrivers", "CSIDriver", false)),
            "apiextensions.k8s.io/v1", List.<String[]>of(kind("customresourcedefinitions", "CustomResourceDefinition", false)));
    /** What the external-snapshotter's CRDs add, while {@link #snapshotApi} says so. */
    private static final Map<String, List<String[]>> SNAPSHOT_KINDS = Map.of("snapshot.storage.k8s.io/v1",
            List.of(kind("volumesnapshots", "VolumeSnapshot", true), kind("volumesnapshotclasses", "VolumeSnapshotClass", false),
                    kind("volumesnapshotcontents", "VolumeSnapshotContent", false)));
    /** What the Prometheus Operator's CRDs add, while {@link #monitoringApi} says so. */
    private static final Map<String, List<String[]>> MONITORING_KINDS = Map.of("monitoring.coreos.com/v1",
            List.<String[]>of(kind("servicemonitors", "ServiceMonitor", true)));
    private static final String NOT_FOUND = """
            {"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","reason":"NotFound","code":404}""";
    private static final FakeKubeApi INSTANCE = start();

    private static final String SNAPSHOT_GROUP = """
            {"kind":"APIGroupList","apiVersion":"v1","groups":[{"name":"snapshot.storage.k8s.io","versions":[
            {"groupVersion":"snapshot.storage.k8s.io/v1","version":"v1"}],
            "preferredVersion":{"groupVersion":"snapshot.storage.k8s.io/v1","version":"v1"}}]}""";
    private static final String SNAPSHOT_RESOURCES = """
            {"kind":"APIResourceList","apiVersion":"v1","groupVersion":"snapshot.storage.k8s.io/v1","resources":[
            {"name":"volumesnapshots","singularName":"volumesnapshot","namespaced":true,"kind":"VolumeSnapshot",
            "verbs":["get","list"]},
            {"name":"volumesnapshotclasses","singularName":"volumesnapshotclass","namespaced":false,
            "kind":"VolumeSnapshotClass","verbs":["get","list"]}]}""";

    private final Map<String, Secret> secrets = new ConcurrentHashMap<>();
    private volatile boolean snapshotApi;
    private volatile boolean monitoringApi;
    private final List<String> created = new java.util.concurrent.CopyOnWriteArrayList<>();
    private final KubernetesSerialization serialization = new KubernetesSerialization();

    private FakeKubeApi() {
    }

    /** The server, started (and the kubeconfig written) on first use. */
    static FakeKubeApi instance() {
        return INSTANCE;
    }

    /** Lookups of this Secret find it until {@link #clear}. */
    void put(Secret secret) {
        secrets.put(path(secret.getMetadata().getNamespace(), secret.getMetadata().getName()), secret);
    }

    /** Whether discovery lists snapshot.storage.k8s.io/v1 (the external-snapshotter's CRDs installed) until {@link #clear}. */
    void snapshotApi(boolean served) {
        snapshotApi = served;
    }

    /** Whether discovery lists monitoring.coreos.com/v1 (the Prometheus Operator's CRDs installed) until {@link #clear}. */
    void monitoringApi(boolean served) {
        monitoringApi = served;
    }

    /** The bodies of the objects an install created (POSTed) since {@link #clear}, oldest first. */
    List<String> created() {
        return List.copyOf(created);
    }

    void clear() {
        secrets.clear();
        snapshotApi = false;
        monitoringApi = false;
        created.clear();
    }

    private static String path(String namespace, String name) {
        return "/api/v1/namespaces/" + namespace + "/secrets/" + name;
    }

    private static FakeKubeApi start() {
        String kubeconfig = System.getProperty("pillar.chart.kubeconfig");
        if (kubeconfig == null) {
            throw new IllegalStateException("pillar.chart.kubeconfig is not set: run the tests through Maven (helm/pillar.chart)");
        }
        FakeKubeApi api = new FakeKubeApi();
        try {
            HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
            server.createContext("/", api::handle);
            server.start();
            Files.writeString(Path.of(kubeconfig), """
                    apiVersion: v1
                    kind: Config
                    clusters: [{name: fake, cluster: {server: "http://127.0.0.1:%d"}}]
                    users: [{name: fake, user: {}}]
                    contexts: [{name: fake, context: {cluster: fake, user: fake}}]
                    current-context: fake
                    """.formatted(server.getAddress().getPort()));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start the fake API for lookup", e);
        }
        return api;
    }

    private void handle(HttpExchange exchange) throws IOException {
        String path = exchange.getRequestURI().getPath();
        Secret secret = secrets.get(path);
        if (exchange.getRequestMethod().equals("POST") || exchange.getRequestMethod().equals("PUT")) {
            // an install: the object is taken as it is (helm's release Secret too) and given back
            // (helm's release Secret comes as protobuf: it is given back as it came, and not recorded)
            byte[] body = exchange.getRequestBody().readAllBytes();
            String type = exchange.getRequestHeaders().getFirst("Content-Type");
            boolean json = type != null && type.startsWith("application/json");
            if (exchange.getRequestMethod().equals("POST") && json) {
                created.add(new String(body, StandardCharsets.UTF_8));
            }
            exchange.getResponseHeaders().set("Content-Type", type == null ? "application/json" : type);
            exchange.sendResponseHeaders(exchange.getRequestMethod().equals("POST") ? 201 : 200, body.length);
            try (var out = exchange.getResponseBody()) {
                out.write(body);
            }
        } else if (!exchange.getRequestMethod().equals("GET")) {
            respond(exchange, 405, NOT_FOUND);
        } else if (path.equals("/version")) {
            respond(exchange, 200, """
                    {"major":"1","minor":"30","gitVersion":"v1.30.0","platform":"linux/amd64"}""");
        } else if (path.equals("/api/v1/namespaces/" + HelmChart.NAMESPACE + "/secrets")) {
            respond(exchange, 200, """
                    {"kind":"SecretList","apiVersion":"v1","metadata":{},"items":[]}""");
        } else if (path.equals("/api")) {
            respond(exchange, 200, """
                    {"kind":"APIVersions","versions":["v1"],"serverAddressByClientCIDRs":[]}""");
        } else if (path.equals("/apis")) {
            respond(exchange, 200, groups());
        } else if (kinds().containsKey(path.replaceFirst("^/apis?/", ""))) {
            respond(exchange, 200, resources(path.replaceFirst("^/apis?/", "")));
        } else if (secret != null) {
            respond(exchange, 200, serialization.asJson(secret));
        } else {
            respond(exchange, 404, NOT_FOUND);
        }
    }

    private static String[] kind(String plural, String kind, boolean namespaced) {
        return new String[] {plural, kind, String.valueOf(namespaced)};
    }

    private Map<String, List<String[]>> kinds() {
        Map<String, List<String[]>> kinds = new TreeMap<>(KINDS);
        if (snapshotApi) {
            kinds.putAll(SNAPSHOT_KINDS);
        }
        if (monitoringApi) {
            kinds.putAll(MONITORING_KINDS);
        }
        return kinds;
    }

    /** The APIGroupList of every group but the core one. */
    private String groups() {
        return kinds().keySet().stream().filter(gv -> gv.contains("/")).map(gv -> {
            String group = gv.substring(0, gv.indexOf('/'));
            String version = """
                    {"groupVersion":"%s","version":"%s"}""".formatted(gv, gv.substring(gv.indexOf('/') + 1));
            return """
                    {"name":"%s","versions":[%s],"preferredVersion":%s}""".formatted(group, version, version);
        }).collect(Collectors.joining(",", "{\"kind\":\"APIGroupList\",\"apiVersion\":\"v1\",\"groups\":[", "]}"));
    }

    /** The APIResourceList of one group version. */
    private String resources(String groupVersion) {
        return kinds().get(groupVersion).stream().map(k -> """
                {"name":"%s","singularName":"","namespaced":%s,"kind":"%s","verbs":["get","list","create"]}"""
                .formatted(k[0], k[2], k[1])).collect(Collectors.joining(",",
                "{\"kind\":\"APIResourceList\",\"apiVersion\":\"v1\",\"groupVersion\":\"" + groupVersion
                        + "\",\"resources\":[", "]}"));
    }

    private static void respond(HttpExchange exchange, int status, String json) throws IOException {
        byte[] body = json.getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", "application/json");
        exchange.sendResponseHeaders(status, body.length);
        try (var out = exchange.getResponseBody()) {
            out.write(body);
        }
    }
}
