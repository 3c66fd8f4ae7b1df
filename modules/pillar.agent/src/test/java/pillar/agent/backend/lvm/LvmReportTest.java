package pillar.agent.backend.lvm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.math.BigDecimal;
import java.util.List;

import org.junit.jupiter.api.Test;

import pillar.agent.backend.BackendException;
import pillar.agent.backend.Captures;
import pillar.agent.backend.lvm.LvmReport.Lv;
import pillar.agent.backend.lvm.LvmReport.ThinPool;
import pillar.agent.backend.lvm.LvmReport.Vg;

/** The lvs/vgs JSON parser on real LVM 2.03.16 output captured in the VM, and on what it must refuse. */
class LvmReportTest {
    @Test
    void lvsOfAVolumeGroupWithLinearThinPoolAndUntaggedVolumes() {
        List<Lv> lvs = LvmReport.lvs(Captures.lvm("lvs-all").stdout());

        assertThat(lvs).extracting(Lv::name).containsExactly("pool", "pvc-a", "pvc-t", "pvc-thuge", "pvc-tover", "untagged");
        assertThat(lvs.get(1)).isEqualTo(new Lv("pvc-a", "/dev/vgcap/pvc-a", 67_108_864L, List.of("pillar-csi"), "", "-wi-a-----", 4_194_304L));
        assertThat(lvs.get(2)).isEqualTo(new Lv("pvc-t", "/dev/vgcap/pvc-t", 134_217_728L, List.of("pillar-csi"), "pool", "Vwi-a-tz--", 4_194_304L));
        Lv pool = lvs.get(0);
        assertThat(pool.path()).isEmpty();
        assertThat(pool.tags()).isEmpty();
        assertThat(pool.attr()).startsWith("t");
        assertThat(lvs.get(3).size()).isEqualTo(1L << 50); // 1 PiB thin LV: past int, fits long
        assertThat(lvs.get(5).tags()).isEmpty();
        assertThat(lvs).allMatch(Lv::active);
    }

    @Test
    void inactiveLvKeepsItsPathButIsNotActive() {
        Lv lv = LvmReport.lvs(Captures.lvm("lvs-inactive").stdout()).get(0);
        assertThat(lv.attr()).isEqualTo("Vwi---tz--");
        assertThat(lv.active()).isFalse();
        assertThat(lv.path()).isEqualTo("/dev/vgcap/pvc-t");
    }

    @Test
    void notFoundPrintsAnEmptyReport() {
        assertThat(LvmReport.lvs(Captures.lvm("lvs-missing").stdout())).isEmpty();
        assertThat(LvmReport.vgs(Captures.lvm("vgs-missing").stdout())).isEmpty();
        assertThat(LvmReport.lvs(Captures.lvm("lvs-empty-vg-select").stdout())).isEmpty();
    }

    @Test
    void volumeGroup() {
        assertThat(LvmReport.vgs(Captures.lvm("vgs").stdout()))
                .containsExactly(new Vg("vgcap", 624_951_296L, 335_544_320L, 4_194_304L));
    }

    @Test
    void thinPoolUsage() {
        ThinPool pool = LvmReport.thinPools(Captures.lvm("lvs-pool").stdout()).get(0);
        assertThat(pool.size()).isEqualTo(209_715_200L);
        assertThat(pool.dataPercent()).isEqualByComparingTo("12.00");
        // 24 MiB written of 200 MiB
        assertThat(pool.free()).isEqualTo(209_715_200L - 25_165_824L);
        assertThat(pool.zeroing()).as("LVM's default: new chunks are zeroed").isTrue();
        assertThat(new ThinPool("p", 1000, new BigDecimal("0.01"), "twi-aotz--", true).free()).isEqualTo(999); // used rounds up
        assertThat(new ThinPool("p", 1000, new BigDecimal("100.00"), "twi-aotz--", true).free()).isZero();
    }

    @Test
    void aThinPoolWithZeroingOffReportsAnEmptyZeroField() {
        ThinPool pool = LvmReport.thinPools(Captures.lvm("lvs-pool-nozero").stdout()).get(0);
        assertThat(pool.zeroing()).isFalse();
        assertThat(pool.attr()).isEqualTo("twi-aot---"); // the 'z' of lv_attr is gone too
    }

    @Test
    void theZeroFieldTakesOnlyItsNameOrBinaryValues() {
        String report = "{\"report\": [{\"lv\": [{\"lv_name\":\"p\", \"lv_size\":\"8\", \"data_percent\":\"0.00\","
                + " \"lv_attr\":\"twi-a-tz--\", \"zero\":\"%s\"}]}]}";
        assertThat(LvmReport.thinPools(report.formatted("1")).get(0).zeroing()).isTrue(); // --binary
        assertThat(LvmReport.thinPools(report.formatted("0")).get(0).zeroing()).isFalse();
        assertThatThrownBy(() -> LvmReport.thinPools(report.formatted("unknown"))) // what a linear LV reports
                .isInstanceOf(BackendException.class).hasMessageContaining("binary field zero");
    }

    /**
     * The over-provisioning check's one lvs of the group: every LV's size and pool, and only the pool's row read as a
     * pool (a linear LV reports "unknown" in zero, a thin LV 0.00 and a linear one nothing in data_percent).
     */
    @Test
    void theThinLayoutReadsThePoolsRowAndEveryLvsSizeAndPool() {
        String report = """
                  {
                      "report": [
                          {
                              "lv": [
                                  {"lv_name":"pool", "lv_size":"209715200", "pool_lv":"", "data_percent":"12.00", "lv_attr":"twi-aotz--", "zero":"zero"},
                                  {"lv_name":"pvc-a", "lv_size":"134217728", "pool_lv":"", "data_percent":"", "lv_attr":"-wi-a-----", "zero":"unknown"},
                                  {"lv_name":"pvc-t", "lv_size":"1073741824", "pool_lv":"pool", "data_percent":"2.34", "lv_attr":"Vwi-a-tz--", "zero":"unknown"}
                              ]
                          }
                      ]
                  }
                """;
        LvmReport.ThinLayout layout = LvmReport.thinLayout(report, "pool");

        assertThat(layout.pool()).hasValueSatisfying(pool -> {
            assertThat(pool.size()).isEqualTo(209_715_200L);
            assertThat(pool.free()).isEqualTo(209_715_200L - 25_165_824L);
            assertThat(pool.zeroing()).isTrue();
        });
        assertThat(layout.lvs()).containsExactly(new LvmReport.Sized("pool", 209_715_200L, ""),
                new LvmReport.Sized("pvc-a", 134_217_728L, ""), new LvmReport.Sized("pvc-t", 1L << 30, "pool"));
        assertThat(LvmReport.thinLayout(report, "pool9").pool()).isEmpty();
    }

    @Test
    void jsonStdNumbersAndTagArraysAreAcceptedToo() {
        String jsonStd = """
                {"report": [{"lv": [{"lv_name":"pvc-1", "lv_path":"/dev/vg0/pvc-1", "lv_size":1073741824,
                  "lv_tags":["pillar-csi","other"], "pool_lv":"", "lv_attr":"-wi-a-----", "vg_extent_size":4194304}]}]}
                """;
        assertThat(LvmReport.lvs(jsonStd)).containsExactly(
                new Lv("pvc-1", "/dev/vg0/pvc-1", 1L << 30, List.of("pillar-csi", "other"), "", "-wi-a-----", 4L << 20));
    }

    @Test
    void warningsBeforeTheReportAreSkipped() {
        String out = "  WARNING: Not using device /dev/sdb for PV abc.\n" + Captures.lvm("vgs").stdout();
        assertThat(LvmReport.vgs(out)).hasSize(1);
    }

    @Test
    void malformedOutputIsAFailureNotAGuess() {
        assertFailed(() -> LvmReport.lvs(""), "no JSON report");
        assertFailed(() -> LvmReport.lvs("{\"report\": [{\"lv\": [{\"lv_name\": \"x\"}]}]}"), "lacks the field lv_path");
        assertFailed(() -> LvmReport.lvs("{\"nothing\": 1}"), "no \"report\" array");
        assertFailed(() -> LvmReport.lvs("{\"report\": [{\"lv\": [{"), "not JSON");
        assertFailed(() -> LvmReport.vgs("{\"report\": [{\"vg\": [{\"vg_name\":\"v\", \"vg_size\":\"1.00g\", \"vg_free\":\"0\","
                + " \"vg_extent_size\":\"4m\"}]}]}"), "--units b --nosuffix");
        assertFailed(() -> LvmReport.thinPools("{\"report\": [{\"lv\": [{\"lv_name\":\"p\", \"lv_size\":\"1\", \"data_percent\":\"150\","
                + " \"lv_attr\":\"t\"}]}]}"), "percentage");
    }

    private static void assertFailed(org.assertj.core.api.ThrowableAssert.ThrowingCallable call, String message) {
        assertThatThrownBy(call).isInstanceOfSatisfying(BackendException.class,
                e -> assertThat(e.kind()).isEqualTo(BackendException.Kind.FAILED)).hasMessageContaining(message);
    }
}
