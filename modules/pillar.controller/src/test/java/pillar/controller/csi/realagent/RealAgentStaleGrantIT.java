package pillar.controller.csi.realagent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static pillar.controller.csi.Requests.NODE_A;
import static pillar.controller.csi.Requests.NODE_B;
import static pillar.controller.csi.realagent.RealAgent.MIB;

import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import pillar.api.agent.v1.AllowInitiatorRequest;
import pillar.api.agent.v1.FencingToken;
import pillar.controller.agent.AgentTarget;
import pillar.controller.crd.PillarVolumeState;
import pillar.controller.csi.CsiHarness;
import pillar.controller.csi.Requests;
import pillar.controller.reconcile.ControllerHarness;
import pillar.controller.volume.StaleGrants;

/**
 * The stale-grant revocation against the real agent over real gRPC: seen from the fake kernel's
 * configfs, the host that is not published loses its allowed_hosts link (and its open connections,
 * as on ControllerUnpublishVolume), the published one keeps its link, and the subsystem and its
 * namespace are left as they were (never re-exported).
 */
class RealAgentStaleGrantIT {
    @TempDir
    Path dir;

    private RealAgent agent;
    private CsiHarness harness;

    @BeforeEach
    void start() {
        agent = new RealAgent(dir);
        harness = CsiHarness.with(agent.client).start();
        harness.pillarObjects("127.0.0.1", agent.port(), "vg0", "pool0");
        harness.startController("controller-a");
        harness.awaitStoreReady();
    }

    @AfterEach
    void stop() {
        harness.close();
        agent.close();
    }

    @Test
    void aHostNotPublishedLosesItsLinkInConfigfsAndNothingElseChanges() {
        agent.expectVolume("pvc-s1");
        harness.csi().createVolume(Requests.create("pvc-s1", 64 * MIB));
        harness.csi().controllerPublishVolume(Requests.publish("pvc-s1", NODE_A, Requests.rwo(), false));
        String nqn = "nqn.2024-06.io.pillar-csi:pvc-s1";
        String allowed = "subsystems/" + nqn + "/allowed_hosts";
        PillarVolumeState state = harness.state("pvc-s1").orElseThrow();
        agent.client.allowInitiator(AgentTarget.plaintext("127.0.0.1", agent.port()), AllowInitiatorRequest.newBuilder()
                .setToken(FencingToken.newBuilder().setLifecycleUid(state.getMetadata().getUid())
                        .setPublicationGeneration(state.getStatus().getPublicationGeneration()))
                .setVolumeId("pvc-s1").setHostNqn(NODE_B).build());
        assertThat(agent.configfs.entries(allowed)).containsExactlyInAnyOrder(NODE_A, NODE_B);
        int before = agent.configfs.changes().size();

        await().atMost(ControllerHarness.PATIENCE).until(() -> agent.configfs.entries(allowed), hosts -> hosts.equals(List.of(NODE_A)));
        List<String> made = agent.configfs.changes().subList(before, agent.configfs.changes().size());
        // what DenyInitiator makes: node B's link and host entry go, and the subsystem is re-linked on its
        // port so that an open connection of B's is cut too; node A's link, the namespace stay
        assertThat(made).contains("unlink " + allowed + "/" + NODE_B)
                .noneMatch(change -> change.contains(NODE_A) || change.contains("namespaces") || change.startsWith("rmdir subsystems"));
        assertThat(agent.configfs.value("subsystems/" + nqn + "/namespaces/1/enable")).contains("1");
        assertThat(agent.configfs.entries("ports")).hasSize(1);
        await().atMost(ControllerHarness.PATIENCE).until(() -> harness.events("pvc-s1").stream()
                .anyMatch(e -> e.getReason().equals(StaleGrants.REVOKED) && e.getMessage().contains(NODE_B)));
    }
}
