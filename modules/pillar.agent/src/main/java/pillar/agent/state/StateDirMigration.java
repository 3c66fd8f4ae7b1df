package pillar.agent.state;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.logging.Level;
import java.util.logging.Logger;

import pillar.runtime.durable.AtomicFiles;

/**
 * Moves this agent's state from the directory an older install kept it in ({@code agent.legacy-state-dir},
 * one directory for every installation on the host) to its own ({@code agent.state-dir}), at start,
 * before {@link StateCheck} reads it. The contract:
 *
 * <ul>
 *   <li>It moves the legacy directory only when the state directory holds nothing (absent, or an empty
 *       directory) and the legacy directory's {@link StateIdentity} names this node and this
 *       installation: then with one atomic rename onto the state directory (its parents created
 *       first, both parent directories fsynced after; {@link AtomicFiles#moveDirectory}), logged at INFO.</li>
 *   <li>It never copies and never merges: anything else leaves both directories as they are. A legacy
 *       identity of another node or installation: left, said at INFO (another installation's state on a
 *       shared host). A legacy directory without an identity, or with a damaged one: left, with a WARNING
 *       (whose it is cannot be told). Both holding state: the state directory is used, a WARNING says the
 *       legacy one is left.</li>
 *   <li>Crash safety: the rename is the only step that changes anything, and it is atomic; the parents it
 *       needs are durable before it. A crash at any instant leaves the directory whole at the legacy
 *       place (the state directory absent or empty, so a retry moves it) or at the new one (the legacy
 *       place absent, so a retry has nothing to move): a start after a crash always finds one of the two.</li>
 *   <li>A rename that fails (another file system: a rename cannot move across one) throws, and nothing moved.</li>
 * </ul>
 */
public final class StateDirMigration {
    private static final Logger LOG = Logger.getLogger(StateDirMigration.class.getName());

    private StateDirMigration() {
    }

    /** What the migration found or did. */
    public enum Outcome {
        /** The legacy directory was this agent's and is now the state directory. */
        MOVED,
        /** There is no legacy directory: nothing to do (a new install, or a move done before). */
        NO_LEGACY,
        /** The legacy directory is another node's or installation's: left as it is. */
        NOT_OURS,
        /** The legacy directory has no identity, or a damaged one: left as it is. */
        UNKNOWN_OWNER,
        /** The state directory holds state already: it is used, the legacy directory is left. */
        BOTH_PRESENT
    }

    /** The outcome and what was logged about it. */
    public record Result(Outcome outcome, Level level, String message) {
    }

    /**
     * Moves {@code legacyDir} onto {@code stateDir} when it is this node's and installation's and the
     * state directory holds nothing; logs what it found or did.
     *
     * @throws UncheckedIOException when the move failed (nothing moved) or a directory cannot be read
     */
    public static Result run(Path stateDir, Path legacyDir, String node, InstallationId installation) {
        Result result = decideAndMove(stateDir, legacyDir, node, installation);
        LOG.log(result.level(), result.message());
        return result;
    }

    private static Result decideAndMove(Path stateDir, Path legacyDir, String node, InstallationId installation) {
        if (!Files.exists(legacyDir)) {
            return new Result(Outcome.NO_LEGACY, Level.FINE, "no legacy state directory " + legacyDir + ": nothing to move");
        }
        Optional<StateIdentity> legacy;
        try {
            legacy = StateIdentity.read(legacyDir);
        } catch (RuntimeException e) {
            return new Result(Outcome.UNKNOWN_OWNER, Level.WARNING, "the legacy state directory " + legacyDir
                    + " is left where it is: its identity cannot be read (" + e.getMessage() + "); if it is this agent's"
                    + " state, stop the agent, move it to " + stateDir + " on the host and start the agent again");
        }
        if (legacy.isEmpty()) {
            return new Result(Outcome.UNKNOWN_OWNER, Level.WARNING, "the legacy state directory " + legacyDir
                    + " is left where it is: it has no identity, so whose it is cannot be told; if it is this agent's"
                    + " state, stop the agent, move it to " + stateDir + " on the host and start the agent again");
        }
        StateIdentity identity = legacy.get();
        if (!identity.node().equals(node) || !identity.installation().equals(installation)) {
            return new Result(Outcome.NOT_OURS, Level.INFO, "the legacy state directory " + legacyDir + " belongs to node "
                    + identity.node() + ", installation " + identity.installation() + ", not to this agent (node " + node
                    + ", installation " + installation + "): it is left untouched");
        }
        if (holdsAnything(stateDir)) {
            return new Result(Outcome.BOTH_PRESENT, Level.WARNING, "the state directory " + stateDir + " holds state and the"
                    + " legacy state directory " + legacyDir + " holds this agent's identity too: the agent uses " + stateDir
                    + " and leaves " + legacyDir + " untouched (never merged; remove it once " + stateDir + " is known to be"
                    + " the right one)");
        }
        AtomicFiles.moveDirectory(legacyDir, stateDir);
        return new Result(Outcome.MOVED, Level.INFO, "moved this agent's state directory (node " + node + ", installation "
                + installation + ") from " + legacyDir + " to " + stateDir + " with one rename");
    }

    private static boolean holdsAnything(Path dir) {
        if (!Files.isDirectory(dir)) {
            return Files.exists(dir);
        }
        try (var entries = Files.list(dir)) {
            return entries.findAny().isPresent();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the state directory " + dir, e);
        }
    }
}
