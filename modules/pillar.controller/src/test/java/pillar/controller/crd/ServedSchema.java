package pillar.controller.crd;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.apiextensions.v1.JSONSchemaProps;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;

/**
 * Which fields of an object a CRD's structural schema does not declare: those an API server prunes
 * (drops without a word) when it stores the object. The emulated API server prunes nothing, so a
 * test asks this instead. Honours {@code properties}, {@code items}, {@code additionalProperties} and
 * {@code x-kubernetes-preserve-unknown-fields}; {@code apiVersion}, {@code kind} and {@code metadata}
 * are never pruned.
 */
final class ServedSchema {
    private ServedSchema() {
    }

    /** The paths ({@code spec.tls.serverName}) of the object's fields that the CRD's first version does not declare. */
    static List<String> undeclared(HasMetadata object, CustomResourceDefinition crd) {
        @SuppressWarnings("unchecked")
        Map<String, Object> fields = new KubernetesSerialization().convertValue(object, Map.class);
        JSONSchemaProps root = crd.getSpec().getVersions().getFirst().getSchema().getOpenAPIV3Schema();
        List<String> found = new ArrayList<>();
        fields.forEach((key, value) -> {
            if (!List.of("apiVersion", "kind", "metadata").contains(key)) {
                walk(value, root.getProperties().get(key), key, found);
            }
        });
        return found;
    }

    private static void walk(Object value, JSONSchemaProps schema, String path, List<String> found) {
        if (schema == null) {
            found.add(path);
        } else if (Boolean.TRUE.equals(schema.getXKubernetesPreserveUnknownFields())) {
            return;
        } else if (value instanceof Map<?, ?> map) {
            boolean typed = schema.getProperties() != null && !schema.getProperties().isEmpty();
            var additional = schema.getAdditionalProperties();
            map.forEach((key, field) -> {
                if (typed) {
                    walk(field, schema.getProperties().get(key), path + "." + key, found);
                } else if (additional != null && additional.getSchema() != null) {
                    walk(field, additional.getSchema(), path + "." + key, found);
                } else if (additional == null || !Boolean.TRUE.equals(additional.getAllows())) {
                    found.add(path + "." + key);
                }
            });
        } else if (value instanceof List<?> list && schema.getItems() != null) {
            for (int i = 0; i < list.size(); i++) {
                walk(list.get(i), schema.getItems().getSchema(), path + "[" + i + "]", found);
            }
        }
    }
}
