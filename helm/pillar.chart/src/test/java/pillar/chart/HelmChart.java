package pillar.chart;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import com.marcnuri.helm.Helm;
import com.marcnuri.helm.TemplateCommand;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import org.yaml.snakeyaml.DumperOptions;
import org.yaml.snakeyaml.Yaml;

/**
 * The chart under test, rendered by real Helm (helm-java runs Helm's Go library in process) into
 * Kubernetes model objects. The chart directory comes from the build ({@code pillar.chart.dir}).
 */
final class HelmChart {
    static final String RELEASE = "pillar";
    static final String NAMESPACE = "storage-system";
    private static final KubernetesSerialization SERIALIZATION = new KubernetesSerialization();

    private HelmChart() {
    }

    static Path dir() {
        String dir = System.getProperty("pillar.chart.dir");
        if (dir == null) {
            throw new IllegalStateException("pillar.chart.dir is not set: run the tests through Maven (helm/pillar.chart)");
        }
        return Path.of(dir).toAbsolutePath().normalize();
    }

    static Helm helm() {
        return helm(dir());
    }

    /** Helm on a chart directory, its lookups answered by {@link FakeKubeApi}. */
    static Helm helm(Path chart) {
        FakeKubeApi.instance();
        return new Helm(chart);
    }

    /** The registry the tests give the three pillar-csi images, which have none by default. */
    static final String TEST_REGISTRY = "registry.test";

    /** Renders the chart with these values (written to a values file, as a user would), kube version 1.25. */
    static Rendered render(Map<String, ?> values) {
        return new Rendered(template(values, "1.25.0"));
    }

    /** {@link #render(Map)} as the release {@code release} in {@code namespace}. */
    static Rendered render(Map<String, ?> values, String release, String namespace) {
        return new Rendered(templateAsIs(withTestRegistry(values), "1.25.0", release, namespace));
    }

    /**
     * The raw {@code helm template} output with these values and, unless they name one, {@link #TEST_REGISTRY}
     * for the pillar-csi images; a refused render throws Helm's error.
     */
    static String template(Map<String, ?> values, String kubeVersion) {
        return templateAsIs(withTestRegistry(values), kubeVersion);
    }

    /** {@link #template} with exactly these values. */
    static String templateAsIs(Map<String, ?> values, String kubeVersion) {
        return templateAsIs(values, kubeVersion, RELEASE, NAMESPACE);
    }

    private static String templateAsIs(Map<String, ?> values, String kubeVersion, String release, String namespace) {
        TemplateCommand command = helm().template().withName(release).withNamespace(namespace).withKubeVersion(kubeVersion);
        if (!values.isEmpty()) {
            command = command.withValuesFile(valuesFile(values));
        }
        return command.call();
    }

    /** The values with {@code images.<workload>.registry} set to {@link #TEST_REGISTRY} where they set none. */
    static Map<String, Object> withTestRegistry(Map<String, ?> values) {
        Map<String, Object> merged = new java.util.LinkedHashMap<>(values);
        Map<String, Object> images = new java.util.LinkedHashMap<>(map(values.get("images")));
        for (String workload : List.of("controller", "agent", "node")) {
            Map<String, Object> image = new java.util.LinkedHashMap<>(map(images.get(workload)));
            image.putIfAbsent("registry", TEST_REGISTRY);
            images.put(workload, image);
        }
        merged.put("images", images);
        return merged;
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> map(Object value) {
        return value == null ? Map.of() : (Map<String, Object>) value;
    }

    /**
     * What {@code helm install} creates on {@link FakeKubeApi} (Helm's .Capabilities come from the
     * cluster's discovery, as on a real install; the CRDs are skipped): the objects and the NOTES.
     */
    static Installed install(Map<String, ?> values) {
        return install(java.util.Optional.of(valuesFile(withTestRegistry(values))));
    }

    /** {@link #install(Map)} with a values file as a user writes it (none: the defaults). */
    static Installed install(java.util.Optional<Path> valuesFile) {
        var install = helm().install().withName(RELEASE).withNamespace(NAMESPACE).skipCrds().disableOpenApiValidation();
        if (valuesFile.isPresent()) {
            install = install.withValuesFile(valuesFile.get());
        }
        int before = FakeKubeApi.instance().created().size();
        String output = install.call().getOutput();
        List<String> objects = FakeKubeApi.instance().created();
        String manifests = String.join("\n---\n", objects.subList(before, objects.size()));
        return new Installed(new Rendered("---\n" + manifests), output.substring(output.indexOf("NOTES:")));
    }

    /** An install's objects and its NOTES. */
    record Installed(Rendered rendered, String notes) {
    }

    static Path valuesFile(Map<String, ?> values) {
        try {
            Path file = Files.createTempFile("pillar-values-", ".yaml");
            file.toFile().deleteOnExit();
            DumperOptions options = new DumperOptions();
            options.setDefaultFlowStyle(DumperOptions.FlowStyle.BLOCK);
            Files.writeString(file, new Yaml(options).dump(values));
            return file;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Every object of a manifest stream, in order. */
    static List<HasMetadata> parse(String manifests) {
        List<HasMetadata> objects = new ArrayList<>();
        for (String document : manifests.split("(?m)^---\\s*$")) {
            if (document.lines().anyMatch(line -> !line.isBlank() && !line.startsWith("#"))) {
                objects.add(SERIALIZATION.unmarshal(document, HasMetadata.class));
            }
        }
        return objects;
    }
}
