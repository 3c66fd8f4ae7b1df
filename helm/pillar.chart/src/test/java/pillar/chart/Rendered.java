package pillar.chart;

import java.util.List;
import java.util.Map;
import java.util.Optional;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import org.yaml.snakeyaml.Yaml;

/** One rendering of the chart: the manifests as Helm printed them, and as objects. */
record Rendered(String manifests, List<HasMetadata> objects) {
    Rendered(String manifests) {
        this(manifests, HelmChart.parse(manifests));
    }

    <T extends HasMetadata> List<T> all(Class<T> type) {
        return objects.stream().filter(type::isInstance).map(type::cast).toList();
    }

    <T extends HasMetadata> Optional<T> find(Class<T> type, String name) {
        return all(type).stream().filter(o -> o.getMetadata().getName().equals(name)).findFirst();
    }

    <T extends HasMetadata> T get(Class<T> type, String name) {
        return find(type, name).orElseThrow(() -> new AssertionError("no " + type.getSimpleName() + " named " + name
                + " in the rendered chart; it has " + objects.stream()
                .map(o -> o.getKind() + "/" + o.getMetadata().getName()).toList()));
    }

    Deployment controller() {
        return get(Deployment.class, "pillar-pillar-csi-controller");
    }

    DaemonSet nodePlugin() {
        return get(DaemonSet.class, "pillar-pillar-csi-node");
    }

    /** The agent DaemonSet of storage-1, the storage node of every test's values. */
    DaemonSet agent() {
        return agent("storage-1");
    }

    /** One storage node's agent DaemonSet (one per node of agent.nodes). */
    DaemonSet agent(String node) {
        return get(DaemonSet.class, "pillar-pillar-csi-agent-" + node);
    }

    /** Every agent DaemonSet (the component label agent), whatever its name. */
    List<DaemonSet> agents() {
        return all(DaemonSet.class).stream()
                .filter(d -> "agent".equals(d.getMetadata().getLabels().get("app.kubernetes.io/component"))).toList();
    }

    /** A ConfigMap entry, parsed as the YAML it holds. */
    Map<String, Object> configFile(String configMap, String key) {
        String text = get(ConfigMap.class, configMap).getData().get(key);
        if (text == null) {
            throw new AssertionError("ConfigMap " + configMap + " has no key " + key);
        }
        return new Yaml().load(text);
    }

    static Container container(PodSpec pod, String name) {
        return java.util.stream.Stream.concat(pod.getContainers().stream(),
                        pod.getInitContainers() == null ? java.util.stream.Stream.empty() : pod.getInitContainers().stream())
                .filter(c -> c.getName().equals(name)).findFirst()
                .orElseThrow(() -> new AssertionError("no container " + name + " in " + pod.getContainers().stream()
                        .map(Container::getName).toList()));
    }
}
