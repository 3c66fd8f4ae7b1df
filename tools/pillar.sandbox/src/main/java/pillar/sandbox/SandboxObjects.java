package pillar.sandbox;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;

/**
 * The Pillar objects the sandbox applies: {@code examples/sandbox/quickstart.yaml} as written (an LVM thin
 * store {@value #STORE}, ext4, its StorageClass {@value #STORAGE_CLASS}), or, for another
 * {@code --backend} or {@code --fs}, the same objects with the store's layout and the class's
 * fsType changed (the output says so). The end-to-end suite adds one store per backend and one
 * class per backend and filesystem ({@link #store}, {@link #storageClass}).
 */
final class SandboxObjects {
    static final String STORE = "fast";
    static final String STORAGE_CLASS = "pillar-fast";
    static final String API_VERSION = "pillar.csi.io/v1alpha1";
    /** examples/sandbox/nfs.yaml's PillarStorageClass (ReadWriteMany over NFS). */
    static final String NFS_STORAGE_CLASS = "pillar-shared";

    private SandboxObjects() {
    }

    /** The objects of a YAML file (several documents), in file order. */
    static List<GenericKubernetesResource> load(Path file) {
        KubernetesSerialization serialization = new KubernetesSerialization();
        List<GenericKubernetesResource> objects = new ArrayList<>();
        try (InputStream in = Files.newInputStream(file)) {
            Object parsed = serialization.unmarshal(in);
            for (Object o : parsed instanceof List<?> list ? list : List.of(parsed)) {
                objects.add(serialization.convertValue(o, GenericKubernetesResource.class));
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + file, e);
        }
        return objects;
    }

    /**
     * The quickstart objects for {@code backend} and {@code mode}: the store {@value #STORE} gets the
     * backend's layout, the class {@value #STORAGE_CLASS} the mode's fsType. {@code changes} receives
     * one line per change (none for lvm-thin with ext4 or block).
     */
    static List<GenericKubernetesResource> forSandbox(List<GenericKubernetesResource> quickstart, Backend backend,
                                                      VolumeMode mode, List<String> changes) {
        List<GenericKubernetesResource> objects = new ArrayList<>();
        for (GenericKubernetesResource object : quickstart) {
            GenericKubernetesResource copy = new GenericKubernetesResourceBuilder(object).build();
            Map<String, Object> spec = spec(copy);
            if (copy.getKind().equals("PillarStore") && copy.getMetadata().getName().equals(STORE)) {
                Map<String, Object> layout = backend.storeLayout();
                if (!layout.equals(without(spec, "agent"))) {
                    spec.keySet().retainAll(List.of("agent"));
                    spec.putAll(layout);
                    changes.add("PillarStore/" + STORE + " set to " + layout + " (--backend " + backend + ")");
                }
            }
            if (copy.getKind().equals("PillarStorageClass") && copy.getMetadata().getName().equals(STORAGE_CLASS)
                    && !mode.fsType().equals(spec.get("fsType"))) {
                spec.put("fsType", mode.fsType());
                changes.add("PillarStorageClass/" + STORAGE_CLASS + " fsType set to " + mode.fsType() + " (--fs " + mode + ")");
            }
            objects.add(copy);
        }
        return objects;
    }

    /**
     * The Pillar objects of {@code examples/sandbox/nfs.yaml} (its claim left out: the sandbox plays the
     * provisioner) for the VM: the PillarProtocol's serverAddress becomes the storage node's address
     * there ({@link NfsdBed#STORAGE_ADDRESS}); {@code changes} receives a line saying so. Fails when
     * the example's store names another agent backend than the one the bed configures.
     */
    static List<GenericKubernetesResource> forNfs(List<GenericKubernetesResource> example, List<String> changes) {
        List<GenericKubernetesResource> objects = new ArrayList<>();
        for (GenericKubernetesResource object : example) {
            if (!object.getApiVersion().equals(API_VERSION)) {
                continue;
            }
            GenericKubernetesResource copy = new GenericKubernetesResourceBuilder(object).build();
            Map<String, Object> spec = spec(copy);
            if (copy.getKind().equals("PillarProtocol") && spec.get("nfs") instanceof Map<?, ?> nfs) {
                Map<Object, Object> changed = new LinkedHashMap<>(nfs);
                changed.put("serverAddress", NfsdBed.STORAGE_ADDRESS);
                spec.put("nfs", changed);
                changes.add("PillarProtocol/" + copy.getMetadata().getName() + " serverAddress set to "
                        + NfsdBed.STORAGE_ADDRESS + " (the storage node's address in the VM)");
            }
            if (copy.getKind().equals("PillarStore") && spec.get("zfs") instanceof Map<?, ?> zfs
                    && !NfsdBed.AGENT_BACKEND.equals(zfs.get("backend"))) {
                throw new IllegalArgumentException("PillarStore/" + copy.getMetadata().getName() + " names the agent backend "
                        + zfs.get("backend") + "; the sandbox's agent serves its datasets as " + NfsdBed.AGENT_BACKEND);
            }
            objects.add(copy);
        }
        return objects;
    }

    /**
     * Copies of {@code objects} in which every PillarAgent asks for mutual TLS as the chart's NOTES
     * tell a default install to: spec.tls {mode: secret, secretName, serverName: the agent's certificate name}.
     */
    static List<GenericKubernetesResource> withMutualTls(List<GenericKubernetesResource> objects) {
        List<GenericKubernetesResource> copies = new ArrayList<>();
        for (GenericKubernetesResource object : objects) {
            GenericKubernetesResource copy = new GenericKubernetesResourceBuilder(object).build();
            if (copy.getKind().equals("PillarAgent")) {
                spec(copy).put("tls", Map.of("mode", "secret", "secretName", SandboxPki.AGENT_SECRET,
                        "serverName", SandboxPki.AGENT_SERVER_NAME));
            }
            copies.add(copy);
        }
        return copies;
    }

    /** A PillarStore {@code store-<backend>} of the quickstart's agent on {@code backend}. */
    static GenericKubernetesResource store(String agent, Backend backend) {
        Map<String, Object> spec = new LinkedHashMap<>();
        spec.put("agent", agent);
        spec.putAll(backend.storeLayout());
        return object("PillarStore", storeName(backend), spec);
    }

    static String storeName(Backend backend) {
        return "store-" + backend;
    }

    /** A PillarStorageClass {@code pillar-<backend>-<fsType>} over {@link #store}'s store. */
    static GenericKubernetesResource storageClass(Backend backend, String fsType, String protocol) {
        return object("PillarStorageClass", storageClassName(backend, fsType), Map.of("store", storeName(backend),
                "protocol", protocol, "fsType", fsType, "reclaimPolicy", "Delete", "allowVolumeExpansion", true));
    }

    static String storageClassName(Backend backend, String fsType) {
        return "pillar-" + backend + "-" + fsType;
    }

    /** The name of the first object of {@code kind}. */
    static String nameOf(List<GenericKubernetesResource> objects, String kind) {
        return objects.stream().filter(o -> o.getKind().equals(kind)).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("no " + kind + " among the objects"))
                .getMetadata().getName();
    }

    private static GenericKubernetesResource object(String kind, String name, Map<String, Object> spec) {
        GenericKubernetesResource object = new GenericKubernetesResourceBuilder().withApiVersion(API_VERSION)
                .withKind(kind).withNewMetadata().withName(name).endMetadata().build();
        object.setAdditionalProperty("spec", new LinkedHashMap<>(spec));
        return object;
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> spec(GenericKubernetesResource object) {
        Map<String, Object> spec = new LinkedHashMap<>((Map<String, Object>) object.getAdditionalProperties()
                .getOrDefault("spec", Map.of()));
        object.setAdditionalProperty("spec", spec);
        return spec;
    }

    private static Map<String, Object> without(Map<String, Object> map, String key) {
        Map<String, Object> copy = new LinkedHashMap<>(map);
        copy.remove(key);
        return copy;
    }
}
