package pillar.controller;

import java.nio.ByteBuffer;
import java.util.List;

import io.fabric8.kubernetes.client.http.AsyncBody;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.HttpResponse;
import io.fabric8.kubernetes.client.http.Interceptor;
import io.prometheus.metrics.core.metrics.Counter;
import pillar.runtime.metrics.WorkloadMetrics;

/**
 * Counts the controller's Kubernetes API requests into {@code pillar_controller_api_requests_total}
 * by {@code verb} (the HTTP method) and {@code code} (the status class: {@code 2xx}, {@code 3xx},
 * {@code 4xx}, {@code 5xx}, or {@code error} when no response came). Each attempt is one request: a
 * retry fabric8 makes after a 5xx or a lost connection is counted again. A watch is one request,
 * counted {@code 2xx} when it opens (its WebSocket upgrade answers 101) and never again while it
 * streams.
 *
 * <p>fabric8 tells an interceptor of a failure without a response only when it will retry it: the
 * last attempt's failure reaches the caller as an exception, unseen here. An API server that cannot
 * be reached is counted as errors all the same, one per retried attempt (fabric8 retries ten times
 * by default).
 */
final class ApiRequestCounter implements Interceptor {
    /** The interceptor's name in the HTTP client. */
    static final String NAME = "pillar-api-requests";

    private final Counter requests;

    ApiRequestCounter(WorkloadMetrics metrics) {
        this.requests = metrics.counter("pillar_controller_api_requests",
                "Kubernetes API requests, by HTTP verb and status class (error: no response)", "verb", "code");
    }

    @Override
    public void after(HttpRequest request, HttpResponse<?> response, AsyncBody.Consumer<List<ByteBuffer>> consumer) {
        requests.labelValues(request.method(), statusClass(response.code())).inc();
    }

    @Override
    public void afterConnectionFailure(HttpRequest request, Throwable failure) {
        requests.labelValues(request.method(), "error").inc();
    }

    /** {@code 2xx} for 200 to 299 and for a watch's 101 Switching Protocols, {@code 4xx} for 404, and so on. */
    static String statusClass(int code) {
        if (code == 101) {
            return "2xx";
        }
        return code >= 200 && code < 600 ? code / 100 + "xx" : "error";
    }
}
