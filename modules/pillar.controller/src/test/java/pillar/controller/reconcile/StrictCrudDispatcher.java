package pillar.controller.reconcile;

import java.net.HttpURLConnection;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.regex.Pattern;

import io.fabric8.kubernetes.api.model.StatusBuilder;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.fabric8.mockwebserver.crud.AttributeSet;
import io.fabric8.mockwebserver.dsl.HttpMethod;
import io.fabric8.mockwebserver.http.Buffer;
import io.fabric8.mockwebserver.http.Headers;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * fabric8's CRUD dispatcher, made to behave like a real API server where it does not: a PUT to the
 * {@code status} subresource with a stale {@code metadata.resourceVersion} is refused with 409
 * Conflict (fabric8 8.0.0 checks the resourceVersion of PUTs to the object but not of PUTs to its
 * status, which would let two writers both "win" a compare-and-swap). Writes are serialized, so the
 * check and the write are one step, as they are in the API server's storage. A Secret whose data
 * keys are outside the API server's grammar ({@code [-._a-zA-Z0-9]+}) is refused with 422, as the
 * API server refuses it. A server-side apply, which fabric8 refuses (415), is emulated ({@link #handlePatch}).
 */
public final class StrictCrudDispatcher extends KubernetesCrudDispatcher {
    private static final Pattern SECRET_KEY = Pattern.compile("[-._a-zA-Z0-9]+");
    private static final String APPLY_PATCH = "application/apply-patch+yaml";
    private static final KubernetesSerialization APPLIED = new KubernetesSerialization();

    @Override
    public synchronized MockResponse handleUpdate(RecordedRequest request) {
        String path = request.getPath();
        if (!path.contains("/secrets") && !path.endsWith("/status")) {
            return super.handleUpdate(request);
        }
        String body = request.getUtf8Body(); // reading consumes the body: the request is made again below
        MockResponse refused = path.endsWith("/status") ? staleStatus(path, body) : invalidSecretKey(path, body);
        return refused != null ? refused : super.handleUpdate(again(request, body));
    }

    @Override
    public synchronized MockResponse handleCreate(RecordedRequest request) {
        if (!request.getPath().contains("/secrets")) {
            return super.handleCreate(request);
        }
        String body = request.getUtf8Body();
        MockResponse refused = invalidSecretKey(request.getPath(), body);
        return refused != null ? refused : super.handleCreate(again(request, body));
    }

    private static RecordedRequest again(RecordedRequest request, String body) {
        return new RecordedRequest(request.getHttpVersion(), request.method(), request.getPath(), request.getHeaders(),
                new Buffer(body.getBytes(StandardCharsets.UTF_8)));
    }

    /** 409 when a status write names a resourceVersion other than the stored one; null otherwise. */
    private MockResponse staleStatus(String path, String body) {
        String sent = resourceVersion(body);
        AttributeSet key = getKey(path);
        Map.Entry<AttributeSet, String> current = findResource(key);
        return sent != null && current != null && !sent.equals(resourceVersion(current.getValue())) ? conflict(path) : null;
    }

    /** 422 when a key of the Secret's data or stringData is outside the API server's grammar; null when all are valid. */
    private static MockResponse invalidSecretKey(String path, String body) {
        JsonNode secret = Serialization.jsonMapper().readTree(body);
        for (String field : new String[] {"data", "stringData"}) {
            for (String key : secret.path(field).propertyNames()) {
                if (!SECRET_KEY.matcher(key).matches()) {
                    return new MockResponse().setResponseCode(422).setBody(Serialization.asJson(new StatusBuilder()
                            .withApiVersion("v1").withKind("Status").withStatus("Failure").withCode(422).withReason("Invalid")
                            .withMessage(path + ": " + field + "[" + key + "]: Invalid value: a valid config key must consist of"
                                    + " alphanumeric characters, '-', '_' or '.' (regex used for validation is '[-._a-zA-Z0-9]+')")
                            .build()));
                }
            }
        }
        return null;
    }

    /**
     * A server-side apply ({@code kubectl apply --server-side --force-conflicts}) creates the object when
     * it does not exist and otherwise merges the applied document into it (RFC 7386: maps merged,
     * lists replaced, which is what a forced apply does to fields another manager set and to atomic
     * lists such as a CRD's {@code versions}) and writes it as an update. Managed fields and conflicts
     * are not modelled. (fabric8's own merge patch appends to lists: not used.)
     */
    @Override
    public synchronized MockResponse handlePatch(RecordedRequest request) {
        String type = request.getHeader("Content-Type");
        if (type == null || !type.startsWith(APPLY_PATCH)) {
            return super.handlePatch(request);
        }
        String path = request.getPath();
        String object = path.contains("?") ? path.substring(0, path.indexOf('?')) : path;
        JsonNode applied = Serialization.jsonMapper().valueToTree(APPLIED.unmarshal(request.getUtf8Body()));
        Map.Entry<AttributeSet, String> current = findResource(getKey(object));
        if (current == null) {
            return super.handleCreate(as(request, HttpMethod.POST, object.substring(0, object.lastIndexOf('/')), applied));
        }
        return handleUpdate(as(request, HttpMethod.PUT, object, merge(Serialization.jsonMapper().readTree(current.getValue()), applied)));
    }

    /** RFC 7386's merge of {@code patch} into {@code target}. */
    static JsonNode merge(JsonNode target, JsonNode patch) {
        if (!patch.isObject()) {
            return patch;
        }
        ObjectNode merged = target.isObject() ? ((ObjectNode) target).deepCopy() : Serialization.jsonMapper().createObjectNode();
        for (Map.Entry<String, JsonNode> field : patch.properties()) {
            if (field.getValue().isNull()) {
                merged.remove(field.getKey());
            } else {
                merged.set(field.getKey(), merge(merged.path(field.getKey()), field.getValue()));
            }
        }
        return merged;
    }

    private static RecordedRequest as(RecordedRequest request, HttpMethod method, String path, JsonNode object) {
        Headers headers = request.getHeaders().newBuilder().set("Content-Type", "application/json").build();
        return new RecordedRequest(request.getHttpVersion(), method, path, headers,
                new Buffer(Serialization.asJson(object).getBytes(StandardCharsets.UTF_8)));
    }

    @Override
    public synchronized MockResponse handleDelete(String path) {
        return super.handleDelete(path);
    }

    private static String resourceVersion(String body) {
        JsonNode version = Serialization.jsonMapper().readTree(body).path("metadata").path("resourceVersion");
        return version.isMissingNode() || version.isNull() || version.asText().isEmpty() ? null : version.asText();
    }

    private static MockResponse conflict(String path) {
        return new MockResponse().setResponseCode(HttpURLConnection.HTTP_CONFLICT).setBody(Serialization.asJson(
                new StatusBuilder().withApiVersion("v1").withKind("Status").withStatus("Failure").withCode(409)
                        .withReason("Conflict").withMessage("Operation cannot be fulfilled on " + path
                                + ": the object has been modified; please apply your changes to the latest version and try again")
                        .build()));
    }
}
