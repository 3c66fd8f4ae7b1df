package pillar.controller.csi.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import pillar.controller.agent.FaultInjectingAgentClient;
import pillar.controller.csi.CsiHarness;
import pillar.controller.csi.Requests;
import pillar.controller.csi.failover.FailoverScenarios;
import pillar.controller.reconcile.ControllerHarness;

/**
 * The controller's meters as Prometheus scrapes them, over HTTP from its health port: the volume
 * states by phase from its watch, the reconcilers' queues, the agent's reachability and the served
 * calls; and which replica leads.
 */
class ControllerMetricsIT {
    @RegisterExtension
    final CsiHarness harness = CsiHarness.fakeAgentOnly();

    @Test
    void volumeStatesAreCountedByPhaseAsTheWatchShowsThem() throws Exception {
        CsiHarness.Controller controller = harness.startController("controller-a");
        harness.awaitStoreReady();
        assertThat(scrape(controller)).contains("pillar_controller_leader 1.0\n")
                .contains("pillar_controller_volume_states{phase=\"Creating\"} 0.0\n",
                        "pillar_controller_volume_states{phase=\"Exported\"} 0.0\n");

        FaultInjectingAgentClient.Hold creating = harness.agents.hold("CreateVolume");
        AtomicReference<String> volumeId = new AtomicReference<>();
        Thread create = Thread.ofVirtual().start(() -> volumeId.set(
                controller.stub().createVolume(Requests.create("pvc-1", CsiHarness.GIB)).getVolume().getVolumeId()));
        assertThat(creating.arrived()).isTrue();
        awaitScrape(controller, "pillar_controller_volume_states{phase=\"Creating\"} 1.0\n");
        creating.release();
        create.join();
        controller.stub().createVolume(Requests.create("pvc-2", CsiHarness.GIB));

        awaitScrape(controller, "pillar_controller_volume_states{phase=\"Exported\"} 2.0\n");
        assertThat(scrape(controller)).contains("pillar_controller_volume_states{phase=\"Creating\"} 0.0\n",
                "pillar_controller_agent_reachable{agent=\"" + CsiHarness.AGENT + "\"} 1.0\n",
                "pillar_controller_reconcile_queue_depth{reconciler=\"PillarVolumeState\"} 0.0\n",
                "pillar_csi_operation_seconds_count{code=\"OK\",method=\"CreateVolume\",workload=\"controller\"} 2\n");

        controller.stub().deleteVolume(Requests.delete(volumeId.get()));
        awaitScrape(controller, "pillar_controller_volume_states{phase=\"Exported\"} 1.0\n");
    }

    /** The health monitor's complete listing is what the abnormal-volume gauge reports: 0 until one, then its count. */
    @Test
    void theLastCompleteListingCountsTheAbnormalVolumes() throws Exception {
        CsiHarness.Controller controller = harness.startController("controller-a");
        harness.awaitStoreReady();
        for (String name : java.util.List.of("pvc-1", "pvc-2", "pvc-3")) {
            controller.stub().createVolume(Requests.create(name, CsiHarness.GIB));
        }
        assertThat(scrape(controller)).contains("pillar_controller_abnormal_volumes 0.0\n");
        harness.fakeAgent().loseVolume("pvc-2");

        pillar.api.csi.v1.ListVolumesResponse first = controller.stub().listVolumes(
                pillar.api.csi.v1.ListVolumesRequest.newBuilder().setMaxEntries(2).build());
        assertThat(scrape(controller)).as("a pass half done publishes nothing").contains("pillar_controller_abnormal_volumes 0.0\n");
        controller.stub().listVolumes(pillar.api.csi.v1.ListVolumesRequest.newBuilder().setMaxEntries(2)
                .setStartingToken(first.getNextToken()).build());

        assertThat(scrape(controller)).contains("pillar_controller_abnormal_volumes 1.0\n");
    }

    @Test
    void onlyTheLeaderSaysItLeads() throws Exception {
        CsiHarness.Controller a = harness.startController("replica-a", true, FailoverScenarios.ELECTION);
        await().atMost(ControllerHarness.PATIENCE).until(() -> a.workload().leading());
        CsiHarness.Controller b = harness.startController("replica-b", true, FailoverScenarios.ELECTION);
        awaitScrape(b, "pillar_controller_leader 0.0\n");
        assertThat(scrape(a)).contains("pillar_controller_leader 1.0\n");
        // a standby runs no reconciler: it reports no queue and no agent
        assertThat(scrape(b)).doesNotContain("pillar_controller_reconcile_queue_depth{", "pillar_controller_agent_reachable{");

        harness.stop(a);
        awaitScrape(b, "pillar_controller_leader 1.0\n");
    }

    private static void awaitScrape(CsiHarness.Controller controller, String line) {
        await().atMost(ControllerHarness.PATIENCE).untilAsserted(() -> assertThat(scrape(controller)).contains(line));
    }

    private static String scrape(CsiHarness.Controller controller) throws Exception {
        HttpResponse<String> response = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(
                "http://127.0.0.1:" + controller.workload().server().healthPort() + "/metrics")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).isEqualTo(200);
        return response.body();
    }
}
