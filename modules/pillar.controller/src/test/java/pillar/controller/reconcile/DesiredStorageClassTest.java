package pillar.controller.reconcile;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;

import io.fabric8.kubernetes.api.model.storage.StorageClass;
import io.fabric8.kubernetes.api.model.storage.StorageClassBuilder;
import org.junit.jupiter.api.Test;
import pillar.controller.crd.PillarStorageClass;
import pillar.controller.crd.PillarStorageClassSpec;

class DesiredStorageClassTest {
    private static PillarStorageClass psc() {
        PillarStorageClass psc = Pillars.storageClass("fast", "tank", "tcp");
        psc.getMetadata().setUid("uid-1");
        return psc;
    }

    @Test
    void theStorageClassCarriesTheStoreProtocolAndSettings() {
        PillarStorageClass psc = psc();
        psc.getSpec().setParameters(Map.of("compression", "zstd", "mkfsOptions", "-m 0"));
        psc.getSpec().setVolumeBindingMode(PillarStorageClassSpec.VolumeBindingMode.WaitForFirstConsumer);
        psc.getSpec().setReclaimPolicy(PillarStorageClassSpec.ReclaimPolicy.Retain);
        StorageClass sc = DesiredStorageClass.of(psc);
        assertThat(sc.getMetadata().getName()).isEqualTo("fast");
        assertThat(sc.getProvisioner()).isEqualTo("pillar.csi.io");
        assertThat(sc.getParameters()).containsExactlyInAnyOrderEntriesOf(Map.of(
                "pillar.csi.io/store", "tank", "pillar.csi.io/protocol", "tcp", "csi.storage.k8s.io/fstype", "ext4",
                "pillar.csi.io/compression", "zstd", "pillar.csi.io/mkfsOptions", "-m 0"));
        assertThat(sc.getReclaimPolicy()).isEqualTo("Retain");
        assertThat(sc.getVolumeBindingMode()).isEqualTo("WaitForFirstConsumer");
        assertThat(sc.getMetadata().getLabels()).containsEntry("app.kubernetes.io/managed-by", "pillar-controller");
        assertThat(sc.getMetadata().getAnnotations()).isEmpty();
        assertThat(DesiredStorageClass.ownedBy(sc, psc)).isTrue();
    }

    @Test
    void theOverridableSettingsAreOneParameterInAFixedOrderAndAbsentWhenNone() {
        PillarStorageClass psc = psc();
        assertThat(DesiredStorageClass.of(psc).getParameters()).doesNotContainKey("pillar.csi.io/overridable");
        psc.getSpec().setOverridable(List.of("mkfsOptions", "volblocksize"));
        assertThat(DesiredStorageClass.of(psc).getParameters()).containsEntry("pillar.csi.io/overridable", "volblocksize,mkfsOptions");
    }

    @Test
    void immutableFieldsNeedAReplacementOthersAnUpdate() {
        StorageClass desired = DesiredStorageClass.of(psc());
        StorageClass same = new StorageClassBuilder(desired).build();
        assertThat(DesiredStorageClass.needsReplacing(same, desired)).isFalse();
        assertThat(DesiredStorageClass.needsUpdating(same, desired)).isFalse();

        assertThat(DesiredStorageClass.needsReplacing(new StorageClassBuilder(desired).addToParameters("x", "y").build(),
                desired)).isTrue();
        assertThat(DesiredStorageClass.needsReplacing(new StorageClassBuilder(desired).withReclaimPolicy("Retain").build(),
                desired)).isTrue();
        assertThat(DesiredStorageClass.needsReplacing(new StorageClassBuilder(desired).withMountOptions(List.of("ro")).build(),
                desired)).isTrue();
        StorageClass expansionOff = new StorageClassBuilder(desired).withAllowVolumeExpansion(false).build();
        assertThat(DesiredStorageClass.needsReplacing(expansionOff, desired)).isFalse();
        assertThat(DesiredStorageClass.needsUpdating(expansionOff, desired)).isTrue();
    }

    @Test
    void ownershipIsByUid() {
        StorageClass sc = DesiredStorageClass.of(psc());
        PillarStorageClass recreated = psc();
        recreated.getMetadata().setUid("uid-2");
        assertThat(DesiredStorageClass.ownedBy(sc, recreated)).isFalse();
        assertThat(DesiredStorageClass.ownedByAnyPillarStorageClass(sc)).isTrue();
        assertThat(DesiredStorageClass.ownedByAnyPillarStorageClass(new StorageClassBuilder().withNewMetadata()
                .withName("fast").endMetadata().build())).isFalse();
    }
}
