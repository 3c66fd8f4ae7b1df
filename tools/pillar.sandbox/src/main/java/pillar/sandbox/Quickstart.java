package pillar.sandbox;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.storage.StorageClass;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.jdkhttp.JdkHttpClientFactory;

/**
 * {@code apply KUBECONFIG OBJECTS.yaml}: creates the quickstart objects, then waits until the
 * controller has reconciled every one of them (each reports its conditions) and, once every
 * condition is true, the generated StorageClass exists; prints each condition as
 * {@code kubectl describe} shows it. Exits non-zero if an object is never reconciled within the
 * deadline. Conditions that stay false are printed, not hidden: they say what the cluster lacks.
 */
final class Quickstart {
    private static final Duration DEADLINE = Duration.ofMinutes(3);

    private Quickstart() {
    }

    static int apply(Path kubeconfig, Path objects) throws IOException, InterruptedException {
        Config config = Config.fromKubeconfig(Files.readString(kubeconfig));
        try (KubernetesClient client = new KubernetesClientBuilder().withConfig(config)
                .withHttpClientFactory(new JdkHttpClientFactory()).build()) {
            List<HasMetadata> applied;
            try (InputStream in = Files.newInputStream(objects)) {
                applied = client.load(in).items();
            }
            for (HasMetadata object : applied) {
                client.resource(object).create();
                System.out.println("  created " + object.getKind() + "/" + object.getMetadata().getName());
            }
            long deadline = System.nanoTime() + DEADLINE.toNanos();
            // conditions that are false at first may turn true on the next poll: give them a little while
            long settleAt = System.nanoTime() + Duration.ofSeconds(20).toNanos();
            while (true) {
                boolean allTrue = true;
                boolean allReconciled = true;
                StringBuilder report = new StringBuilder();
                for (HasMetadata object : applied) {
                    GenericKubernetesResource current = client.genericKubernetesResources(object.getApiVersion(),
                            object.getKind()).withName(object.getMetadata().getName()).get();
                    List<Map<String, Object>> conditions = conditions(current);
                    allReconciled &= !conditions.isEmpty();
                    allTrue &= !conditions.isEmpty() && conditions.stream().allMatch(c -> "True".equals(c.get("status")));
                    report.append("  ").append(object.getKind()).append('/').append(object.getMetadata().getName())
                            .append('\n');
                    for (Map<String, Object> c : conditions) {
                        report.append("      ").append(c.get("type")).append('=').append(c.get("status")).append("  ")
                                .append(c.get("reason")).append(": ").append(c.get("message")).append('\n');
                    }
                }
                List<StorageClass> classes = client.storage().v1().storageClasses().list().getItems();
                boolean settled = allTrue ? !classes.isEmpty() : allReconciled && System.nanoTime() > settleAt;
                if (settled || System.nanoTime() > deadline) {
                    System.out.print(report);
                    for (StorageClass sc : classes) {
                        System.out.println("  generated StorageClass/" + sc.getMetadata().getName() + ": provisioner "
                                + sc.getProvisioner() + ", parameters " + sc.getParameters() + ", reclaimPolicy "
                                + sc.getReclaimPolicy() + ", allowVolumeExpansion " + sc.getAllowVolumeExpansion());
                    }
                    return allReconciled ? 0 : 1;
                }
                Thread.sleep(500);
            }
        }
    }

    @SuppressWarnings("unchecked")
    private static List<Map<String, Object>> conditions(GenericKubernetesResource resource) {
        if (resource == null || !(resource.getAdditionalProperties().get("status") instanceof Map<?, ?> status)) {
            return List.of();
        }
        Object conditions = status.get("conditions");
        return conditions instanceof List<?> list ? (List<Map<String, Object>>) list : List.of();
    }
}
