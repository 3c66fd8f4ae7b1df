package pillar.chart;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.LocalObjectReference;
import io.fabric8.kubernetes.api.model.PodSpec;
import org.junit.jupiter.api.Test;

/** A mirror registry for air-gapped clusters replaces the registry of every image, sidecars included. */
class ImagesTest {
    @Test
    void registryOverrideReachesEveryImageAndPullSecretsEveryPod() {
        Map<String, Object> values = new java.util.HashMap<>(AgentRenderTest.TWO_NODES);
        values.put("global", Map.of("imageRegistry", "mirror.lan:5000", "imagePullSecrets", List.of("mirror-pull")));
        Rendered rendered = HelmChart.render(values);
        List<PodSpec> pods = pods(rendered);
        assertThat(images(pods)).containsExactlyInAnyOrder(
                "mirror.lan:5000/pillar-csi/controller:0.1.0",
                "mirror.lan:5000/sig-storage/csi-provisioner:v5.2.0",
                "mirror.lan:5000/sig-storage/csi-attacher:v4.8.0",
                "mirror.lan:5000/sig-storage/csi-resizer:v1.13.0",
                "mirror.lan:5000/sig-storage/csi-external-health-monitor-controller:v0.14.0",
                "mirror.lan:5000/pillar-csi/node:0.1.0",
                "mirror.lan:5000/pillar-csi/node:0.1.0",
                "mirror.lan:5000/sig-storage/csi-node-driver-registrar:v2.13.0",
                "mirror.lan:5000/pillar-csi/agent:0.1.0",
                "mirror.lan:5000/pillar-csi/agent:0.1.0");
        assertThat(pods).hasSize(3).allSatisfy(pod -> assertThat(pod.getImagePullSecrets())
                .extracting(LocalObjectReference::getName).containsExactly("mirror-pull"));
    }

    @Test
    void defaultsNameUpstreamSidecarsAndTheChartsAppVersion() {
        List<PodSpec> pods = pods(HelmChart.render(AgentRenderTest.TWO_NODES));
        assertThat(images(pods)).filteredOn(i -> i.startsWith(HelmChart.TEST_REGISTRY + "/pillar-csi/"))
                .allMatch(i -> i.endsWith(":0.1.0")).hasSize(5);
        assertThat(images(pods)).filteredOn(i -> !i.startsWith(HelmChart.TEST_REGISTRY + "/"))
                .allMatch(i -> i.startsWith("registry.k8s.io/sig-storage/"))
                .hasSize(5);
        assertThat(pods).allSatisfy(pod -> assertThat(pod.getImagePullSecrets()).isNullOrEmpty());
    }

    @Test
    void aDigestPinsAnImageAndATagOverridesTheAppVersion() {
        String digest = "sha256:" + "ab".repeat(32);
        Rendered rendered = HelmChart.render(Map.of("images", Map.of(
                "controller", Map.of("digest", digest),
                "node", Map.of("registry", "ghcr.io/acme", "tag", "0.1.0-rc1", "pullPolicy", "Always"))));
        PodSpec controller = rendered.controller().getSpec().getTemplate().getSpec();
        assertThat(Rendered.container(controller, "pillar-controller").getImage()).isEqualTo(HelmChart.TEST_REGISTRY + "/pillar-csi/controller@" + digest);
        PodSpec node = rendered.nodePlugin().getSpec().getTemplate().getSpec();
        assertThat(Rendered.container(node, "pillar-node").getImage()).isEqualTo("ghcr.io/acme/pillar-csi/node:0.1.0-rc1");
        assertThat(Rendered.container(node, "pillar-node").getImagePullPolicy()).isEqualTo("Always");
        assertThat(Rendered.container(node, "modprobe").getImage()).isEqualTo("ghcr.io/acme/pillar-csi/node:0.1.0-rc1");
    }

    private static List<PodSpec> pods(Rendered rendered) {
        return List.of(rendered.controller().getSpec().getTemplate().getSpec(),
                rendered.nodePlugin().getSpec().getTemplate().getSpec(), rendered.agent().getSpec().getTemplate().getSpec());
    }

    private static List<String> images(List<PodSpec> pods) {
        return pods.stream().flatMap(pod -> Stream.concat(pod.getInitContainers().stream(), pod.getContainers().stream()))
                .map(Container::getImage).toList();
    }
}
