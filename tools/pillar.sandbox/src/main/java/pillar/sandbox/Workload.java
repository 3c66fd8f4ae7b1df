package pillar.sandbox;

import java.nio.file.Path;
import java.util.List;

import pillar.launch.WorkloadCommand;

/**
 * One pillar-csi workload of a bed as it is deployed: a JVM started by {@link WorkloadCommand} from
 * the module's packaged module path, with its AOT cache (measured under TCG: 160 s to 65 s to ready,
 * three JVMs starting at once). The first start after a build records it.
 *
 * @param name    what the output calls it ("controller", "agent", "node", "node-b")
 * @param module  the JPMS module, e.g. {@code pillar.agent}
 * @param main    the main class's simple name, e.g. {@code AgentMain}
 * @param healthPort the HTTP port of its readiness endpoint
 * @param args    its command-line arguments
 */
record Workload(String name, String module, String main, int healthPort, List<String> args) {
    Workload {
        args = List.copyOf(args);
    }

    /**
     * The java command line, from the project at {@code root} ({@link WorkloadCommand}). With
     * {@code aotCache} newer than every jar it runs from, the JVM uses it; without one (or a stale one)
     * and {@code mayTrain}, this run records one, written when the JVM exits normally.
     */
    List<String> command(Path root, Path aotCache, boolean mayTrain) {
        return new WorkloadCommand(module, main, args).toList(root, aotCache,
                mayTrain ? WorkloadCommand.Aot.USE_OR_RECORD : WorkloadCommand.Aot.USE);
    }

    /** Whether its cache in {@code aotDir} is newer than every jar it runs from. */
    boolean cacheFresh(Path root, Path aotDir) {
        return new WorkloadCommand(module, main, args).cacheFresh(root, aotDir);
    }
}
