package pillar.agent.backend.lvm;

import static org.assertj.core.api.Assertions.assertThat;
import static pillar.agent.backend.BackendAssertions.assertFails;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import pillar.agent.backend.BackendException.Kind;
import pillar.agent.backend.PoolHealth;
import pillar.agent.config.BackendConfig;
import pillar.api.agent.v1.BackendKind;
import pillar.api.value.ByteSize;

/**
 * What the LVM backends read for a volume's health, on the fake LVM (LvmBackendKernelIT holds the
 * same against real LVM): a thin pool's data and metadata usage from one {@code lvs}, nothing for a
 * linear group, and whether a volume exists without activating it.
 */
class LvmHealthTest extends FakeLvmFixture {
    @Test
    void aThinBackendReportsItsPoolsDataAndMetadataUsageFromOneLvs() {
        lvm.setUsage("pool0", 91.5, 12.75);

        PoolHealth health = thin.health();

        assertThat(health).isEqualTo(PoolHealth.thin(new PoolHealth.ThinUsage("vg0/pool0", 91.5, 12.75)));
        assertThat(lvm.argvs()).containsExactly(List.of("lvs", "--reportformat", "json", "--units", "b", "--nosuffix", "-o",
                "lv_name,lv_attr,data_percent,metadata_percent", "vg0/pool0"));
    }

    @Test
    void aLinearBackendHasNoPoolToReportAndRunsNothing() {
        assertThat(linear.health()).isEqualTo(PoolHealth.NONE);
        assertThat(lvm.argvs()).isEmpty();
    }

    @Test
    void aMissingThinPoolOrGroupIsUnavailable() {
        LvmBackend noPool = backend(new BackendConfig("t", BackendKind.BACKEND_KIND_LVM_THIN, "vg0", "gone"));
        LvmBackend noGroup = backend(new BackendConfig("g", BackendKind.BACKEND_KIND_LVM_THIN, "vg9", "pool0"));

        assertFails(noPool::health, Kind.UNAVAILABLE, "vg0");
        assertFails(noGroup::health, Kind.UNAVAILABLE, "vg9");
    }

    @Test
    void aVolumeRemovedBehindTheAgentNoLongerExistsAndExistsNeverActivates() {
        thin.create(PVC1, ByteSize.ofMiB(8), Map.of());
        lvm.deactivate("pvc-1");
        int before = lvm.argvs().size();

        assertThat(thin.exists(PVC1)).isTrue();
        assertThat(lvm.argvs().subList(before, lvm.argvs().size())).extracting(a -> a.get(0)).containsOnly("lvs");

        lvm.removeBehindTheAgent("pvc-1");
        assertThat(thin.exists(PVC1)).isFalse();
        assertThat(linear.exists(PVC2)).isFalse();
    }
}
