package pillar.sandbox;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;

import org.junit.jupiter.api.Test;

class MetricsExcerptTest {
    @Test
    void eachMethodAndCodeIsALineWithItsCountAndMeanTime() {
        String text = """
                # TYPE pillar_csi_operation_seconds histogram
                pillar_csi_operation_seconds_bucket{code="OK",method="CreateVolume",workload="controller",le="0.05"} 2
                pillar_csi_operation_seconds_count{code="OK",method="CreateVolume",workload="controller"} 2
                pillar_csi_operation_seconds_sum{code="OK",method="CreateVolume",workload="controller"} 0.05
                pillar_csi_operation_seconds_count{code="NOT_FOUND",method="DeleteVolume",workload="controller"} 1
                pillar_csi_operation_seconds_sum{code="NOT_FOUND",method="DeleteVolume",workload="controller"} 0.002
                pillar_agent_command_seconds_count{command="zfs create",outcome="ok"} 1
                """;
        assertThat(MetricsExcerpt.calls(text)).containsExactly(
                new MetricsExcerpt.Calls("CreateVolume", "OK", 2, 0.05),
                new MetricsExcerpt.Calls("DeleteVolume", "NOT_FOUND", 1, 0.002));
        assertThat(MetricsExcerpt.calls(text).get(0).toString()).contains("2 calls, mean 25.0 ms");
    }

    @Test
    void theUserCommandGetsTheThreeMetricsUrls() throws Exception {
        BedLayout layout = BedLayout.under(Path.of("/p"), Path.of("/tmp/pillar-metrics-excerpt"), Path.of("/tmp/l"),
                new BedLayout.Ports(1, 2, 3, 4, 5));
        assertThat(UserCommand.environment(layout, java.util.Map.of())).containsEntry("PILLAR_METRICS_URLS",
                "http://127.0.0.1:3/metrics http://127.0.0.1:5/metrics http://127.0.0.1:4/metrics");
    }
}
