package pillar.sandbox;

import java.util.List;
import java.util.concurrent.atomic.LongAdder;

import io.fabric8.kubernetes.client.dsl.base.CustomResourceDefinitionContext;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;

/**
 * The emulator's CRUD dispatcher, counting the requests it serves and the time it spends on them,
 * so that a benchmark can say how many API requests a CSI call makes and what they cost here.
 * {@code GET /pillar-emulator/requests} answers {@code "REQUESTS NANOS"} (since the start; not
 * counted itself). Watches count as one request each, their events not at all.
 */
final class CountingDispatcher extends KubernetesCrudDispatcher {
    static final String PATH = "/pillar-emulator/requests";

    private final LongAdder requests = new LongAdder();
    private final LongAdder nanos = new LongAdder();

    CountingDispatcher(List<CustomResourceDefinitionContext> crds) {
        super(crds);
    }

    @Override
    public MockResponse dispatch(RecordedRequest request) {
        if ("GET".equals(request.getMethod()) && PATH.equals(request.getPath())) {
            return new MockResponse().setResponseCode(200).setBody(requests.sum() + " " + nanos.sum());
        }
        long start = System.nanoTime();
        try {
            return super.dispatch(request);
        } finally {
            nanos.add(System.nanoTime() - start);
            requests.increment();
        }
    }
}
