package pillar.controller.reconcile.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import pillar.api.agent.v1.AddressFamily;
import pillar.api.agent.v1.BackendKind;
import pillar.api.agent.v1.CreateVolumeRequest;
import pillar.api.agent.v1.ExportSpec;
import pillar.api.agent.v1.ExportVolumeRequest;
import pillar.api.agent.v1.FencingToken;
import pillar.controller.agent.AgentTarget;
import pillar.controller.crd.PillarStore;
import pillar.runtime.metrics.WorkloadMetrics;
import pillar.controller.crd.PillarAgent;
import pillar.controller.crd.PillarProtocol;
import pillar.controller.reconcile.loop.Backoff;
import pillar.controller.reconcile.ControllerHarness;
import pillar.controller.reconcile.MockApi;
import pillar.controller.reconcile.Pillars;
import pillar.controller.reconcile.loop.ReconcileLoop;
import pillar.controller.reconcile.loop.ReconcileMeters;
import pillar.controller.reconcile.loop.Result;

/**
 * The reconcilers' meters against the mock API server: an agent's reachability follows its polls
 * and goes with it; each reconcile is timed by outcome; the queue depth is the backlog of objects
 * due, not those waiting for a later poll or retry; a store's orphans follow what its agent holds
 * unclaimed and go with the store; a loop that closed (a term that ended) reports no depth, no
 * agent and no orphans.
 */
class ReconcileMetricsIT {
    @RegisterExtension
    final ControllerHarness harness = new ControllerHarness();

    @Test
    void anAgentIsReachableWhileItAnswersItsPollAndGoneWithItsPillarAgent() {
        harness.agents.agent("192.0.2.10", 9500).backend("fast", BackendKind.BACKEND_KIND_ZFS_ZVOL, "tank", "k8s");
        harness.create(Pillars.agentAt("storage-1", "192.0.2.10", 9500));
        awaitScrape("pillar_controller_agent_reachable{agent=\"storage-1\"} 1.0\n");
        awaitReconciled("PillarAgent", "requeue");

        harness.agents.agent("192.0.2.10", 9500).down();
        awaitScrape("pillar_controller_agent_reachable{agent=\"storage-1\"} 0.0\n");
        awaitReconciled("PillarAgent", "retry");

        harness.agents.agent("192.0.2.10", 9500).up();
        awaitScrape("pillar_controller_agent_reachable{agent=\"storage-1\"} 1.0\n");

        harness.delete(PillarAgent.class, "storage-1");
        await().atMost(ControllerHarness.PATIENCE).until(() -> !harness.metrics.scrape().contains("agent=\"storage-1\""));
    }

    @Test
    void everyLoopReportsItsQueueWhileItRunsAndNoAgentOnceItStops() {
        harness.agents.agent("192.0.2.10", 9500).backend("fast", BackendKind.BACKEND_KIND_ZFS_ZVOL, "tank", "k8s");
        harness.create(Pillars.agentAt("storage-1", "192.0.2.10", 9500));
        harness.create(Pillars.zfsStore("tank", "storage-1", "fast", "tank", "k8s"));
        awaitScrape("pillar_controller_agent_reachable{agent=\"storage-1\"} 1.0\n");
        awaitScrape("pillar_controller_orphans{kind=\"volume\",store=\"tank\"} 0.0\n");
        for (String kind : new String[] {"PillarAgent", "PillarStore", "PillarProtocol", "PillarStorageClass"}) {
            awaitScrape("pillar_controller_reconcile_queue_depth{reconciler=\"" + kind + "\"} 0.0\n");
        }

        harness.close(); // the reconcilers stop, as when this replica stops leading
        assertThat(harness.metrics.scrape()).doesNotContain("pillar_controller_reconcile_queue_depth{")
                .doesNotContain("pillar_controller_agent_reachable{").doesNotContain("pillar_controller_orphans{");
    }

    @Test
    void aStoresOrphansFollowWhatItsAgentHoldsUnclaimedAndGoWithTheStore() {
        AgentTarget agent = AgentTarget.plaintext("192.0.2.10", 9500);
        harness.agents.agent("192.0.2.10", 9500).backend("fast", BackendKind.BACKEND_KIND_ZFS_ZVOL, "tank", "k8s")
                .capacity("fast", 100L << 30, 100L << 30);
        harness.create(Pillars.agentAt("storage-1", "192.0.2.10", 9500));
        harness.create(Pillars.zfsStore("tank", "storage-1", "fast", "tank", "k8s"));
        awaitScrape("pillar_controller_orphans{kind=\"volume\",store=\"tank\"} 0.0\n");
        awaitScrape("pillar_controller_orphans{kind=\"export\",store=\"tank\"} 0.0\n");

        // two volumes no PillarVolumeState claims, one of them exported
        for (String id : new String[] {"pvc-orphan-1", "pvc-orphan-2"}) {
            harness.agents.createVolume(agent, CreateVolumeRequest.newBuilder().setToken(token(id)).setVolumeId(id)
                    .setBackend("fast").setSizeBytes(1L << 30).build());
        }
        harness.agents.exportVolume(agent, ExportVolumeRequest.newBuilder().setToken(token("pvc-orphan-2"))
                .setVolumeId("pvc-orphan-2").setBackend("fast").setExport(ExportSpec.newBuilder().setBindAddress("192.0.2.10")
                        .setPort(4420).setAddressFamily(AddressFamily.ADDRESS_FAMILY_IPV4).setAclEnabled(true)).build());
        awaitScrape("pillar_controller_orphans{kind=\"volume\",store=\"tank\"} 2.0\n");
        awaitScrape("pillar_controller_orphans{kind=\"export\",store=\"tank\"} 1.0\n");

        // removed by hand behind pillar-csi
        harness.agents.agent("192.0.2.10", 9500).loseVolume("pvc-orphan-1").loseExport("pvc-orphan-2");
        awaitScrape("pillar_controller_orphans{kind=\"volume\",store=\"tank\"} 1.0\n");
        awaitScrape("pillar_controller_orphans{kind=\"export\",store=\"tank\"} 0.0\n");

        harness.delete(PillarStore.class, "tank");
        await().atMost(ControllerHarness.PATIENCE).until(() -> !harness.metrics.scrape().contains("store=\"tank\""));
    }

    private static FencingToken token(String id) {
        return FencingToken.newBuilder().setLifecycleUid(java.util.UUID.nameUUIDFromBytes(id.getBytes()).toString())
                .setPublicationGeneration(1).build();
    }

    @Test
    void theQueueDepthIsTheBacklogAndEachReconcileIsTimedByItsOutcome() throws Exception {
        WorkloadMetrics metrics = WorkloadMetrics.create("controller");
        ScheduledThreadPoolExecutor scheduler = new ScheduledThreadPoolExecutor(1);
        try (MockApi api = MockApi.start()) {
            for (String name : new String[] {"done", "polled", "broken"}) {
                api.client.resource(Pillars.protocol(name, "192.0.2.1")).create();
            }
            ReconcileLoop<PillarProtocol> loop = new ReconcileLoop<>("PillarProtocol",
                    api.client.resources(PillarProtocol.class).runnableInformer(0), protocol -> switch (protocol.getMetadata().getName()) {
                        case "done" -> Result.done();
                        case "polled" -> Result.requeueAfter(Duration.ofMinutes(10));
                        default -> throw new IllegalStateException("a reconciler's bug");
                    }, PillarProtocol::getSpec, new Backoff(Duration.ofMinutes(10), Duration.ofMinutes(10)), scheduler,
                    new ReconcileMeters(metrics));
            try {
                loop.start().toCompletableFuture().get(30, TimeUnit.SECONDS);
                // listed, queued (the informer hands its adds over asynchronously), and not yet reconciled: the loop is not open
                awaitLine(metrics, "pillar_controller_reconcile_queue_depth{reconciler=\"PillarProtocol\"} 3.0\n");

                loop.open();
                // each reconciled once; the poll and the retry wait ten minutes, so nothing is due
                await().atMost(ControllerHarness.PATIENCE).untilAsserted(() -> assertThat(metrics.scrape()).contains(
                        "pillar_controller_reconcile_seconds_count{outcome=\"done\",reconciler=\"PillarProtocol\"} 1\n",
                        "pillar_controller_reconcile_seconds_count{outcome=\"requeue\",reconciler=\"PillarProtocol\"} 1\n",
                        "pillar_controller_reconcile_seconds_count{outcome=\"error\",reconciler=\"PillarProtocol\"} 1\n",
                        "pillar_controller_reconcile_queue_depth{reconciler=\"PillarProtocol\"} 0.0\n"));
            } finally {
                loop.close();
            }
            assertThat(metrics.scrape()).doesNotContain("pillar_controller_reconcile_queue_depth{");
        } finally {
            scheduler.shutdownNow();
        }
    }

    /** Waits until a reconcile of that kind has ended with that outcome (the reachability is set before it ends). */
    private void awaitReconciled(String kind, String outcome) {
        await().atMost(ControllerHarness.PATIENCE).untilAsserted(() -> assertThat(harness.metrics.scrape()).containsPattern(
                "\npillar_controller_reconcile_seconds_count\\{outcome=\"" + outcome + "\",reconciler=\"" + kind + "\"} [1-9]"));
    }

    private static void awaitLine(WorkloadMetrics metrics, String line) {
        await().atMost(ControllerHarness.PATIENCE).untilAsserted(() -> assertThat(metrics.scrape()).contains(line));
    }

    private void awaitScrape(String line) {
        await().atMost(ControllerHarness.PATIENCE).untilAsserted(() -> assertThat(harness.metrics.scrape()).contains(line));
    }
}
