package pillar.controller.crd;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import org.junit.jupiter.api.Test;

/**
 * The objects in examples/sandbox/ are what the sandbox applies: each Pillar object passes every check the
 * controller makes ({@link SpecValidator}), and each PillarStorageClass pairs a store and a protocol
 * that fit ({@link ProtocolFit}), so none of them would end in InvalidSpec or ProtocolStoreMismatch.
 */
class ExamplesTest {
    private static final Path EXAMPLES = Path.of("../../examples/sandbox");
    private static final KubernetesSerialization JSON = new KubernetesSerialization();

    @Test
    void everyExampleIsValidAndEveryClassPairsAStoreAndAProtocolThatFit() throws IOException {
        Map<String, PillarStoreSpec> stores = new HashMap<>();
        Map<String, PillarProtocolSpec> protocols = new HashMap<>();
        Map<String, PillarStorageClassSpec> classes = new HashMap<>();
        for (String file : List.of("quickstart.yaml", "nfs.yaml")) {
            for (GenericKubernetesResource object : load(EXAMPLES.resolve(file))) {
                String name = object.getMetadata().getName();
                switch (object.getKind()) {
                    case "PillarStore" -> stores.put(name, spec(object, PillarStore.class).getSpec());
                    case "PillarProtocol" -> protocols.put(name, spec(object, PillarProtocol.class).getSpec());
                    case "PillarStorageClass" -> classes.put(name, spec(object, PillarStorageClass.class).getSpec());
                    case "PillarAgent" -> assertThat(SpecValidator.problems(spec(object, PillarAgent.class).getSpec()))
                            .as(file + " " + name).isEmpty();
                    default -> { }
                }
            }
        }
        assertThat(classes).containsKeys("pillar-fast", "pillar-shared");
        stores.forEach((name, spec) -> assertThat(SpecValidator.problems(spec)).as(name).isEmpty());
        protocols.forEach((name, spec) -> assertThat(SpecValidator.problems(spec)).as(name).isEmpty());
        classes.forEach((name, spec) -> {
            assertThat(SpecValidator.problems(spec)).as(name).isEmpty();
            assertThat(stores).as(name + "'s store").containsKey(spec.getStore());
            assertThat(protocols).as(name + "'s protocol").containsKey(spec.getProtocol());
            assertThat(ProtocolFit.mismatch(spec.getStore(), stores.get(spec.getStore()), spec.getProtocol(),
                    protocols.get(spec.getProtocol()))).as(name).isEmpty();
        });
        assertThat(protocols.get("nfs").kind()).isEqualTo(ProtocolKind.NFS);
        assertThat(stores.get("shared").getZfs().datasets()).isTrue();
    }

    private static <T> T spec(GenericKubernetesResource object, Class<T> type) {
        return JSON.convertValue(object, type);
    }

    /** The objects of a YAML file of one or more documents. */
    static List<GenericKubernetesResource> load(Path file) throws IOException {
        try (InputStream in = Files.newInputStream(file)) {
            Object parsed = JSON.unmarshal(in);
            return parsed instanceof List<?> list ? list.stream().map(o -> JSON.convertValue(o, GenericKubernetesResource.class)).toList()
                    : List.of(JSON.convertValue(parsed, GenericKubernetesResource.class));
        }
    }
}
