package pillar.controller.csi.realagent;

import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import pillar.controller.csi.CsiHarness;
import pillar.controller.csi.failover.FailoverScenarios;

/** The failover scenario with the real agent over gRPC: the ACL is read from its fake kernel's configfs. */
class RealAgentFailoverIT {
    @TempDir
    Path dir;

    @Test
    void theDeposedLeadersLateCallIsRefusedByTheRealAgentAndChangesNothing() throws Exception {
        try (RealAgent agent = new RealAgent(dir); CsiHarness harness = CsiHarness.with(agent.client).start()) {
            harness.pillarObjects("127.0.0.1", agent.port(), "vg0", "pool0");
            agent.expectVolume("pvc-f");
            FailoverScenarios.run(harness,
                    id -> agent.configfs.entries("subsystems/nqn.2024-06.io.pillar-csi:" + id + "/allowed_hosts"),
                    64 * RealAgent.MIB);
        }
    }
}
