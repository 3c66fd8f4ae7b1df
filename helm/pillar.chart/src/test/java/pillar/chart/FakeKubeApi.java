package pillar.chart;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
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
    private static final String DISCOVERY = """
            {"kind":"APIResourceList","apiVersion":"v1","groupVersion":"v1","resources":[
            {"name":"secrets","singularName":"secret","namespaced":true,"kind":"Secret","verbs":["get","list"]}]}""";
    private static final String NOT_FOUND = """
            {"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","reason":"NotFound","code":404}""";
    private static final FakeKubeApi INSTANCE = start();

    private final Map<String, Secret> secrets = new ConcurrentHashMap<>();
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

    void clear() {
        secrets.clear();
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
        if (!exchange.getRequestMethod().equals("GET")) {
            respond(exchange, 405, NOT_FOUND);
        } else if (path.equals("/api/v1")) {
            respond(exchange, 200, DISCOVERY);
        } else if (path.equals("/api")) {
            respond(exchange, 200, """
                    {"kind":"APIVersions","versions":["v1"],"serverAddressByClientCIDRs":[]}""");
        } else if (path.equals("/apis")) {
            respond(exchange, 200, """
                    {"kind":"APIGroupList","apiVersion":"v1","groups":[]}""");
        } else if (secret != null) {
            respond(exchange, 200, serialization.asJson(secret));
        } else {
            respond(exchange, 404, NOT_FOUND);
        }
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
