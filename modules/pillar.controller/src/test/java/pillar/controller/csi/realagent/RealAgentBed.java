package pillar.controller.csi.realagent;

import java.nio.file.Path;

import pillar.agent.configfs.FakeConfigfsTree;
import pillar.controller.csi.CsiHarness;

/**
 * The real agent ({@link RealAgent}) behind one controller, {@code controller-a}, on a {@link CsiHarness}: the
 * Pillar objects name the agent at 127.0.0.1 with its store on vg0/pool0, and {@link #start} returns once the
 * controller has discovered the store's pool. {@link #close} stops the harness, then the agent; the test calls it.
 */
final class RealAgentBed implements AutoCloseable {
    final RealAgent agent;
    final CsiHarness harness;

    private RealAgentBed(RealAgent agent, CsiHarness harness) {
        this.agent = agent;
        this.harness = harness;
    }

    /** On the fake configfs of kernel 6.1. */
    static RealAgentBed start(Path dir) {
        return start(dir, FakeConfigfsTree.create());
    }

    /** On {@code configfs}, e.g. the fake of a 6.12 kernel ({@link FakeConfigfsTree#createWithAuth}). */
    static RealAgentBed start(Path dir, FakeConfigfsTree configfs) {
        RealAgent agent = new RealAgent(dir, configfs);
        try {
            CsiHarness harness = CsiHarness.with(agent.client).start();
            harness.pillarObjects("127.0.0.1", agent.port(), "vg0", "pool0");
            harness.startController("controller-a");
            harness.awaitStoreReady();
            return new RealAgentBed(agent, harness);
        } catch (RuntimeException | Error e) {
            agent.close();
            throw e;
        }
    }

    @Override
    public void close() {
        harness.close();
        agent.close();
    }
}
