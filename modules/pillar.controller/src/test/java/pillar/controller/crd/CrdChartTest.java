package pillar.controller.crd;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

import io.fabric8.kubernetes.api.Pluralize;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinitionVersion;
import io.fabric8.kubernetes.api.model.apiextensions.v1.JSONSchemaProps;
import io.fabric8.kubernetes.api.model.apiextensions.v1.ValidationRule;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.fabric8.kubernetes.model.annotation.Plural;
import org.junit.jupiter.api.Test;

/**
 * The chart's CRDs are exactly what the build generates from the Java types, so the two cannot
 * drift; and the generated CRDs say what the design asks (cluster scope, status subresource,
 * printer columns, CEL rules, protocols that do not ship refused). When the first test fails,
 * refresh the chart: {@code ./mvnw -pl modules/pillar.controller -am -Prefresh-crds process-classes}.
 */
class CrdChartTest {
    private static final Path GENERATED = Path.of(System.getProperty("pillar.crds.generated", "target/crds"));
    private static final Path CHART = Path.of(System.getProperty("pillar.crds.chart", "../../helm/pillar-csi/crds"));

    @Test
    void theChartHoldsExactlyTheGeneratedCrds() throws IOException {
        Map<String, String> generated = read(GENERATED);
        assertThat(generated).as("generated CRDs in " + GENERATED).containsOnlyKeys(
                "pillaragents.pillar.csi.io-v1.yml", "pillarstores.pillar.csi.io-v1.yml",
                "pillarprotocols.pillar.csi.io-v1.yml", "pillarstorageclasses.pillar.csi.io-v1.yml",
                "pillarvolumestates.pillar.csi.io-v1.yml", "pillarsnapshotstates.pillar.csi.io-v1.yml");
        assertThat(read(CHART))
                .as("helm/pillar-csi/crds differs from the CRDs generated from pillar.controller.crd; refresh it with"
                        + " ./mvnw -pl modules/pillar.controller -am -Prefresh-crds process-classes")
                .isEqualTo(generated);
    }

    @Test
    void everyKindSpellsOutItsPluralSoThatNoInstanceComputesIt() {
        // fabric8's CustomResource constructor otherwise runs its Pluralize (regular expressions) twice per
        // object: a tenth of the controller's CPU under load; the first test keeps the names the same
        for (Class<?> kind : List.of(PillarAgent.class, PillarStore.class, PillarProtocol.class, PillarStorageClass.class,
                PillarVolumeState.class, PillarSnapshotState.class)) {
            assertThat(kind.getAnnotation(Plural.class)).as(kind.getSimpleName()).isNotNull();
            assertThat(HasMetadata.getPlural(kind)).isEqualTo(Pluralize.toPlural(HasMetadata.getSingular(kind)));
        }
    }

    @Test
    void everyCrdIsClusterScopedWithAStatusSubresourceAndPrinterColumns() throws IOException {
        for (String plural : List.of("pillaragents", "pillarstores", "pillarprotocols", "pillarstorageclasses",
                "pillarvolumestates", "pillarsnapshotstates")) {
            CustomResourceDefinition crd = crd(plural);
            assertThat(crd.getSpec().getGroup()).isEqualTo("pillar.csi.io");
            assertThat(crd.getSpec().getScope()).isEqualTo("Cluster");
            CustomResourceDefinitionVersion version = crd.getSpec().getVersions().getFirst();
            assertThat(version.getName()).isEqualTo("v1alpha1");
            assertThat(version.getSubresources().getStatus()).isNotNull();
            assertThat(version.getAdditionalPrinterColumns()).extracting(c -> c.getName()).contains("Age").hasSizeGreaterThan(3);
        }
    }

    @Test
    void theStoreShowsWhetherItsAgentHasOrphanedVolumes() throws IOException {
        assertThat(crd("pillarstores").getSpec().getVersions().getFirst().getAdditionalPrinterColumns())
                .filteredOn(c -> c.getName().equals("Orphans"))
                .singleElement().satisfies(c -> assertThat(c.getJsonPath())
                        .isEqualTo(".status.conditions[?(@.type==\"" + PillarStore.ORPHAN_VOLUMES + "\")].status"));
    }

    @Test
    void fieldsThatDependOnOthersHaveCelRules() throws IOException {
        assertThat(rules(spec("pillaragents"))).contains("has(self.nodeName) != has(self.address)");
        assertThat(rules(spec("pillaragents").getProperties().get("tls"))).contains("self.mode != 'secret' || has(self.secretName)");
        assertThat(rules(spec("pillarstores"))).contains("has(self.zfs) != has(self.lvm)");
        assertThat(rules(spec("pillarstores").getProperties().get("lvm"))).singleElement().asString()
                .contains("has(self.thinPool)");
        assertThat(rules(spec("pillarprotocols"))).contains("!has(self.iscsi)", "has(self.nvmeofTcp) != has(self.nfs)");
        assertThat(rules(spec("pillarstores").getProperties().get("zfs"))).singleElement().asString().contains("'dataset'");
        assertThat(rules(spec("pillarstores").getProperties().get("zfs").getProperties().get("layout")))
                .containsExactly("self == oldSelf");
        assertThat(rules(spec("pillarprotocols").getProperties().get("nvmeofTcp"))).hasSize(3)
                .anySatisfy(r -> assertThat(r).contains("self.ctrlLossTmo >= self.reconnectDelay").doesNotContain("-1"))
                .anySatisfy(r -> assertThat(r).contains("self.auth != 'required'").contains("self.aclEnabled"))
                .anySatisfy(r -> assertThat(r).contains("self.tls != 'required'").contains("self.aclEnabled"));
        for (String field : List.of("auth", "tls")) {
            JSONSchemaProps property = spec("pillarprotocols").getProperties().get("nvmeofTcp").getProperties().get(field);
            assertThat(property.getEnum()).as(field).extracting(n -> n.asString()).containsExactlyInAnyOrder("required", "off");
            assertThat(property.getDefault().asString()).as(field).isEqualTo("off");
        }
        assertThat(spec("pillarprotocols").getProperties().get("nfs").getProperties().get("squash").getEnum())
                .extracting(n -> n.asString()).containsExactlyInAnyOrder("no_root_squash", "root_squash");
        assertThat(rules(spec("pillarstorageclasses").getProperties().get("parameters"))).singleElement()
                .asString().startsWith("self.all(k, k in [");
        assertThat(rules(spec("pillarstorageclasses").getProperties().get("overridable"))).singleElement()
                .asString().isEqualTo("self.all(s, s in ['sparse', 'volblocksize', 'compression', 'mkfsOptions'])");
    }

    @Test
    void theVolumeStateFreezesItsSettingsAndRecordsItsExportSpecOnce() throws IOException {
        JSONSchemaProps state = spec("pillarvolumestates");
        assertThat(rules(state)).singleElement().asString().contains("oldSelf.export");
        for (String frozen : List.of("volumeName", "store", "agent", "backend", "protocol", "capacityBytes", "volumeMode",
                "fsType", "accessModes", "parameters")) {
            assertThat(rules(state.getProperties().get(frozen))).as(frozen).containsExactly("self == oldSelf");
        }
        assertThat(rules(state.getProperties().get("export"))).isEmpty();
        assertThat(state.getProperties().get("export").getRequired())
                .containsExactlyInAnyOrder("bindAddress", "port", "aclEnabled", "traddr");
        assertThat(state.getProperties().get("volumeMode").getEnum()).extracting(n -> n.asString())
                .containsExactlyInAnyOrder("Filesystem", "Block");
        JSONSchemaProps status = crd("pillarvolumestates").getSpec().getVersions().getFirst().getSchema().getOpenAPIV3Schema()
                .getProperties().get("status");
        assertThat(status.getProperties()).containsKeys("phase", "publicationGeneration", "publications", "conditions");
        assertThat(status.getProperties().get("phase").getEnum()).extracting(n -> n.asString())
                .containsExactlyInAnyOrder("Pending", "Creating", "Exporting", "Exported", "Deleting");
    }

    @Test
    void defaultsAndEnumsAreInTheSchema() throws IOException {
        JSONSchemaProps agent = spec("pillaragents");
        assertThat(agent.getProperties().get("port").getDefault().asInt()).isEqualTo(9500);
        assertThat(agent.getProperties().get("tls").getProperties().get("mode").getEnum())
                .extracting(n -> n.asString()).containsExactlyInAnyOrder("none", "secret");
        JSONSchemaProps tcp = spec("pillarprotocols").getProperties().get("nvmeofTcp");
        assertThat(tcp.getRequired()).containsExactly("bindAddress");
        assertThat(tcp.getProperties().get("port").getDefault().asInt()).isEqualTo(4420);
        assertThat(tcp.getProperties().get("aclEnabled").getDefault().asBoolean()).isTrue();
        // ctrl_loss_tmo is bounded: no -1 (reconnect forever), at most an hour
        assertThat(tcp.getProperties().get("ctrlLossTmo").getMinimum()).isEqualTo(1.0);
        assertThat(tcp.getProperties().get("ctrlLossTmo").getMaximum()).isEqualTo(3600.0);
        JSONSchemaProps lvm = spec("pillarstores").getProperties().get("lvm");
        assertThat(lvm.getProperties().get("acceptNonZeroingThinPool").getDefault().asBoolean()).isFalse();
        assertThat(lvm.getProperties().get("acceptNonZeroingThinPool").getDescription()).contains("data remanence");
        assertThat(spec("pillarprotocols").getRequired()).as("one of nvmeofTcp and nfs, by a rule").isNullOrEmpty();
        JSONSchemaProps nfs = spec("pillarprotocols").getProperties().get("nfs");
        assertThat(nfs.getProperties().get("version").getEnum()).extracting(n -> n.asString()).containsExactly("4.2");
        assertThat(nfs.getProperties().get("version").getDefault().asString()).isEqualTo("4.2");
        JSONSchemaProps layout = spec("pillarstores").getProperties().get("zfs").getProperties().get("layout");
        assertThat(layout.getEnum()).extracting(n -> n.asString()).containsExactlyInAnyOrder("zvol", "dataset");
        assertThat(layout.getDefault().asString()).isEqualTo("zvol");
        JSONSchemaProps sc = spec("pillarstorageclasses");
        assertThat(sc.getProperties().get("fsType").getEnum()).extracting(n -> n.asString()).containsExactlyInAnyOrder("ext4", "xfs");
        assertThat(sc.getRequired()).containsExactlyInAnyOrder("store", "protocol");
    }

    private static List<String> rules(JSONSchemaProps props) {
        List<ValidationRule> rules = props.getXKubernetesValidations();
        return rules == null ? List.of() : rules.stream().map(ValidationRule::getRule).toList();
    }

    private static JSONSchemaProps spec(String plural) throws IOException {
        return crd(plural).getSpec().getVersions().getFirst().getSchema().getOpenAPIV3Schema().getProperties().get("spec");
    }

    private static CustomResourceDefinition crd(String plural) throws IOException {
        try (InputStream in = Files.newInputStream(GENERATED.resolve(plural + ".pillar.csi.io-v1.yml"))) {
            return new KubernetesSerialization().unmarshal(in, CustomResourceDefinition.class);
        }
    }

    private static Map<String, String> read(Path dir) throws IOException {
        Map<String, String> files = new TreeMap<>();
        if (!Files.isDirectory(dir)) {
            return files;
        }
        try (Stream<Path> list = Files.list(dir)) {
            for (Path file : list.sorted().toList()) {
                files.put(file.getFileName().toString(), Files.readString(file));
            }
        }
        return files;
    }
}
