package pillar.chart;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import org.junit.jupiter.api.Test;

/**
 * Every field the chart renders is one Kubernetes knows: the model keeps a field it does not know
 * (a misspelt {@code mountPropogation}, a key at the wrong level) in its additionalProperties,
 * which are looked for at every depth of every object (cert-manager's have no model here).
 */
class StrictFieldsTest {
    @Test
    void noRenderedObjectHasAFieldKubernetesDoesNotKnow() {
        // the agent with everything it can run: both LVM kinds, ZFS and the NFS server
        Map<String, Object> everything = new HashMap<>(NfsRenderTest.ON);
        everything.put("tls", Map.of("mode", "cert-manager"));
        everything.put("global", Map.of("imageRegistry", "mirror.lan:5000", "imagePullSecrets", List.of("pull")));
        everything.put("controller", Map.of("podAnnotations", Map.of("a", "b"), "nodeSelector", Map.of("k", "v"),
                "tolerations", List.of(Map.of("key", "k", "operator", "Equal", "value", "v", "effect", "NoSchedule"))));
        List<String> unknown = new ArrayList<>();
        int checked = 0;
        for (Map<String, Object> values : List.<Map<String, Object>>of(Map.of(), everything)) {
            for (HasMetadata object : HelmChart.render(values).objects()) {
                if (!(object instanceof GenericKubernetesResource)) {
                    walk(object, object.getKind() + "/" + object.getMetadata().getName(), unknown);
                    checked++;
                }
            }
        }
        assertThat(checked).isGreaterThan(30);
        assertThat(unknown).isEmpty();
    }

    private static void walk(Object value, String path, List<String> unknown) {
        if (value instanceof List<?> list) {
            for (int i = 0; i < list.size(); i++) {
                walk(list.get(i), path + "[" + i + "]", unknown);
            }
            return;
        }
        if (value instanceof Map<?, ?> map) {
            map.forEach((k, v) -> walk(v, path + "." + k, unknown));
            return;
        }
        if (value == null || !value.getClass().getPackageName().startsWith("io.fabric8.kubernetes.api.model")) {
            return;
        }
        for (Method getter : value.getClass().getMethods()) {
            if (getter.getParameterCount() != 0 || Modifier.isStatic(getter.getModifiers()) || !getter.getName().startsWith("get")
                    || getter.getDeclaringClass() == Object.class) {
                continue;
            }
            Object child = invoke(getter, value);
            if (getter.getName().equals("getAdditionalProperties")) {
                if (child instanceof Map<?, ?> extra && !extra.isEmpty()) {
                    unknown.add(path + " " + extra.keySet());
                }
            } else {
                walk(child, path + "." + getter.getName().substring(3), unknown);
            }
        }
    }

    private static Object invoke(Method getter, Object target) {
        try {
            return getter.invoke(target);
        } catch (IllegalAccessException | InvocationTargetException e) {
            throw new IllegalStateException(getter + ": " + e.getMessage(), e);
        }
    }
}
