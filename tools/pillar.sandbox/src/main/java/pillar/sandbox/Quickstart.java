package pillar.sandbox;

import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.storage.StorageClass;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.NonDeletingOperation;

/**
 * Applies Pillar objects and waits, as an operator watching {@code kubectl describe} would, until
 * the controller has set every condition of every object to its healthy value (True; False for the
 * conditions that report a problem, {@link #PROBLEMS}; or a False that is a fact,
 * {@link #SETTLED_WHEN_FALSE}) and generated the StorageClass of every
 * PillarStorageClass. Prints the conditions at the end, and the ones still pending every 15 s while
 * it waits; fails after the deadline with the conditions that never turned healthy.
 */
final class Quickstart {
    /**
     * Conditions whose True means something is wrong: PillarStore's OrphanVolumes, PillarAgent's
     * DamagedRecords and PlaintextTransport.
     */
    static final Set<String> PROBLEMS = Set.of("OrphanVolumes", "DamagedRecords", "PlaintextTransport");
    /**
     * False conditions that state a fact of the object, not a fault to wait out: an LVM linear
     * store's classes take no snapshots (SnapshotClassCreated=False, SnapshotsUnsupported); a class on a
     * protocol without an ACL serves no single-node access mode (SingleNodeAccess=False, AclDisabled).
     */
    static final Map<String, Set<String>> SETTLED_WHEN_FALSE = Map.of("SnapshotClassCreated", Set.of("SnapshotsUnsupported"),
            "SingleNodeAccess", Set.of("AclDisabled"));

    private static final Duration PROGRESS_EVERY = Duration.ofSeconds(15);

    private Quickstart() {
    }

    /** Creates {@code objects} (or updates them, when a create is retried) and prints each. */
    static void create(KubernetesClient client, List<GenericKubernetesResource> objects, PrintStream out) {
        for (GenericKubernetesResource object : objects) {
            client.resource(object).createOr(NonDeletingOperation::update);
            out.println("  created " + object.getKind() + "/" + object.getMetadata().getName() + "  " + spec(object));
        }
    }

    /** Waits for every condition healthy and every generated StorageClass; returns the classes by name. */
    static Map<String, StorageClass> awaitReconciled(KubernetesClient client, List<GenericKubernetesResource> objects,
                                                     Duration deadline, PrintStream out) throws InterruptedException {
        long start = System.nanoTime();
        long nextProgress = start + PROGRESS_EVERY.toNanos();
        while (true) {
            List<String> report = new ArrayList<>();
            List<String> pending = new ArrayList<>();
            Map<String, StorageClass> classes = new LinkedHashMap<>();
            for (GenericKubernetesResource object : objects) {
                GenericKubernetesResource current = client.genericKubernetesResources(object.getApiVersion(),
                        object.getKind()).withName(object.getMetadata().getName()).get();
                List<Map<String, Object>> conditions = conditions(current);
                String name = object.getKind() + "/" + object.getMetadata().getName();
                report.add("  " + name);
                if (conditions.isEmpty()) {
                    pending.add(name + " (no conditions yet)");
                }
                for (Map<String, Object> c : conditions) {
                    report.add("      " + c.get("type") + "=" + c.get("status") + "  " + c.get("reason") + ": " + c.get("message"));
                    String healthy = PROBLEMS.contains(String.valueOf(c.get("type"))) ? "False" : "True";
                    boolean settled = "False".equals(c.get("status"))
                            && SETTLED_WHEN_FALSE.getOrDefault(String.valueOf(c.get("type")), Set.of()).contains(c.get("reason"));
                    if (!healthy.equals(c.get("status")) && !settled) {
                        pending.add(name + " " + c.get("type") + "=" + c.get("status") + " (" + c.get("reason") + ")");
                    }
                }
                if (object.getKind().equals("PillarStorageClass")) {
                    StorageClass sc = client.storage().v1().storageClasses().withName(object.getMetadata().getName()).get();
                    if (sc == null) {
                        pending.add("StorageClass/" + object.getMetadata().getName() + " (not generated yet)");
                    } else {
                        classes.put(sc.getMetadata().getName(), sc);
                    }
                }
            }
            long now = System.nanoTime();
            if (pending.isEmpty() || now - start > deadline.toNanos()) {
                report.forEach(out::println);
                if (!pending.isEmpty()) {
                    throw new IllegalStateException("after " + deadline.toSeconds() + " s these are still not healthy: " + pending);
                }
                return classes;
            }
            if (now > nextProgress) {
                out.printf("  ... %d s: waiting for %s%n", (now - start) / 1_000_000_000, pending);
                nextProgress = now + PROGRESS_EVERY.toNanos();
            }
            Thread.sleep(500);
        }
    }

    /** How {@code kubectl get storageclass -o yaml} would show the parts that matter. */
    static String describe(StorageClass sc) {
        return "StorageClass/" + sc.getMetadata().getName() + ": provisioner " + sc.getProvisioner()
                + ", reclaimPolicy " + sc.getReclaimPolicy() + ", volumeBindingMode " + sc.getVolumeBindingMode()
                + ", allowVolumeExpansion " + sc.getAllowVolumeExpansion() + "\n      parameters " + sc.getParameters();
    }

    private static Object spec(GenericKubernetesResource object) {
        return object.getAdditionalProperties().get("spec");
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
