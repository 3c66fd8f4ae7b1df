package pillar.controller;

import java.nio.file.Path;
import java.util.Optional;

import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.jdkhttp.JdkHttpClientFactory;
import pillar.runtime.metrics.WorkloadMetrics;

/**
 * The controller's Kubernetes client: in-cluster by default, or from a kubeconfig file; every request
 * it makes counted ({@link ApiRequestCounter}).
 */
public final class KubernetesClients {
    private KubernetesClients() {
    }

    /**
     * @throws IllegalArgumentException when no kubeconfig is given and this process is not in a pod
     */
    static KubernetesClient create(Optional<Path> kubeconfig, Optional<String> context, WorkloadMetrics metrics) {
        Config config;
        if (kubeconfig.isPresent()) {
            config = Config.fromKubeconfig(context.orElse(null), kubeconfig.get().toFile());
        } else {
            if (System.getenv("KUBERNETES_SERVICE_HOST") == null) {
                throw new IllegalArgumentException("not running in a Kubernetes pod (KUBERNETES_SERVICE_HOST is unset):"
                        + " set kubernetes.kubeconfig to a kubeconfig file");
            }
            config = Config.autoConfigure(context.orElse(null));
        }
        return create(config, metrics);
    }

    /** A client of that configuration whose requests are counted into {@code metrics} (the controller's own). */
    public static KubernetesClient create(Config config, WorkloadMetrics metrics) {
        ApiRequestCounter requests = new ApiRequestCounter(metrics);
        // the JDK's HTTP client, named explicitly: no service lookup across automatic modules
        return new KubernetesClientBuilder().withConfig(config).withHttpClientFactory(new JdkHttpClientFactory())
                .withHttpClientBuilderConsumer(http -> http.addOrReplaceInterceptor(ApiRequestCounter.NAME, requests))
                .build();
    }
}
