package pillar.controller;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.ServerSocket;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import io.fabric8.kubernetes.api.model.storage.StorageClass;
import io.fabric8.kubernetes.api.model.storage.StorageClassBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import org.junit.jupiter.api.Test;
import pillar.runtime.metrics.WorkloadMetrics;
import pillar.controller.reconcile.MockApi;

/**
 * The controller's client counts its Kubernetes API requests by verb and status class, over real
 * HTTP exchanges with the mock API server: a watch once, however many events it streams; a request
 * that gets no answer as an error.
 */
class ApiRequestCounterIT {
    private final WorkloadMetrics metrics = WorkloadMetrics.create("controller");

    @Test
    void countsEachRequestByVerbAndStatusClassAndAWatchOnce() throws Exception {
        try (MockApi api = MockApi.start();
             KubernetesClient client = KubernetesClients.create(api.client.getConfiguration(), metrics)) {
            assertThat(client.storage().v1().storageClasses().list().getItems()).isEmpty();
            assertThat(client.storage().v1().storageClasses().withName("missing").get()).isNull();
            CountDownLatch events = new CountDownLatch(3);
            try (Watch watch = client.storage().v1().storageClasses().watch(new Watcher<>() {
                @Override
                public void eventReceived(Action action, StorageClass resource) {
                    events.countDown();
                }

                @Override
                public void onClose(WatcherException cause) {
                }
            })) {
                client.resource(storageClass("a")).create();
                client.resource(storageClass("b")).create();
                client.storage().v1().storageClasses().withName("a").delete();
                assertThat(events.await(30, TimeUnit.SECONDS)).as("the watch saw two creates and a delete").isTrue();
            }
        }
        assertThat(metrics.scrape()).contains(
                "pillar_controller_api_requests_total{code=\"2xx\",verb=\"GET\"} 2.0\n",
                "pillar_controller_api_requests_total{code=\"4xx\",verb=\"GET\"} 1.0\n",
                "pillar_controller_api_requests_total{code=\"2xx\",verb=\"POST\"} 2.0\n",
                "pillar_controller_api_requests_total{code=\"2xx\",verb=\"DELETE\"} 1.0\n");
    }

    @Test
    void aRequestThatGetsNoAnswerIsAnErrorEachTimeItIsRetried() throws Exception {
        int closed;
        try (ServerSocket socket = new ServerSocket(0)) {
            closed = socket.getLocalPort();
        }
        Config unreachable = new ConfigBuilder(Config.empty()).withMasterUrl("http://127.0.0.1:" + closed)
                .withRequestRetryBackoffLimit(2).withRequestRetryBackoffInterval(10).build();
        try (KubernetesClient client = KubernetesClients.create(unreachable, metrics)) {
            assertThatThrownBy(() -> client.storage().v1().storageClasses().list())
                    .isInstanceOf(KubernetesClientException.class);
        }
        // three attempts; fabric8 tells interceptors of the two it retries (the last one surfaces as the exception)
        assertThat(metrics.scrape()).contains("pillar_controller_api_requests_total{code=\"error\",verb=\"GET\"} 2.0\n")
                .doesNotContain("code=\"2xx\"");
    }

    @Test
    void aWatchOpeningIsASuccessAndAnyOtherCodeItsClass() {
        assertThat(ApiRequestCounter.statusClass(101)).isEqualTo("2xx");
        assertThat(ApiRequestCounter.statusClass(201)).isEqualTo("2xx");
        assertThat(ApiRequestCounter.statusClass(304)).isEqualTo("3xx");
        assertThat(ApiRequestCounter.statusClass(409)).isEqualTo("4xx");
        assertThat(ApiRequestCounter.statusClass(503)).isEqualTo("5xx");
        assertThat(ApiRequestCounter.statusClass(0)).isEqualTo("error");
    }

    private static StorageClass storageClass(String name) {
        return new StorageClassBuilder().withNewMetadata().withName(name).endMetadata().withProvisioner("pillar.csi.io").build();
    }
}
