package pillar.agent.state;

import java.io.IOException;
import java.io.StringReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Optional;
import java.util.Properties;
import java.util.regex.Pattern;

import pillar.runtime.durable.AtomicFiles;
import pillar.runtime.durable.DamagedRecordException;

/**
 * Whose state a state directory holds: the storage node (the agent's node name), the installation
 * and when the directory was first used. Kept in {@code <state-dir>/identity}, written once,
 * atomically ({@link AtomicFiles}), never rewritten by the agent: a directory without it, or with
 * another node's or installation's, is not this agent's state (see {@link StateCheck}).
 *
 * @param node         the storage node's name: 1 to 253 characters of {@code [A-Za-z0-9._-]}
 * @param installation the installation whose volumes this agent owns
 * @param created      when the identity was written
 */
public record StateIdentity(String node, InstallationId installation, Instant created) {
    /** The file's name in the state directory. */
    public static final String FILE = "identity";
    private static final Pattern NODE = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,252}");

    public StateIdentity {
        checkNode(node);
    }

    /**
     * Checks a node name's grammar (a Kubernetes node name or a host name).
     *
     * @throws IllegalArgumentException naming the rule
     */
    public static String checkNode(String node) {
        if (!NODE.matcher(node).matches()) {
            throw new IllegalArgumentException("agent.node-name must be 1 to 253 characters of A-Z a-z 0-9 . _ - starting with"
                    + " a letter or digit, is '" + (node.chars().allMatch(c -> c >= 0x20 && c < 0x7f) ? node : "<unprintable>") + "'");
        }
        return node;
    }

    /**
     * The identity in {@code stateDir}, or empty when there is none.
     *
     * @throws IllegalStateException when the file exists but is damaged (never taken for "none")
     */
    public static Optional<StateIdentity> read(Path stateDir) {
        Path file = stateDir.resolve(FILE);
        try {
            return AtomicFiles.read(file, "the state identity").map(StateIdentity::parse);
        } catch (IllegalArgumentException e) {
            throw new DamagedRecordException("the state identity " + file + " is damaged (" + e.getMessage() + ")", e);
        }
    }

    /** Writes the identity into {@code stateDir} atomically (the directory is created if needed). */
    public void write(Path stateDir) {
        // durably: the new state directory's parent is fsynced
        AtomicFiles.createDirectories(stateDir);
        AtomicFiles.write(stateDir.resolve(FILE), encode().getBytes(StandardCharsets.UTF_8));
    }

    String encode() {
        return "version=1\nnode=" + node + "\ninstallation=" + installation.value() + "\ncreated=" + created + "\n";
    }

    static StateIdentity parse(String text) {
        Properties p = new Properties();
        try {
            p.load(new StringReader(text));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        if (!"1".equals(p.getProperty("version")) || p.size() != 4 || p.getProperty("node") == null
                || p.getProperty("installation") == null || p.getProperty("created") == null) {
            throw new IllegalArgumentException("unknown version or missing fields");
        }
        try {
            return new StateIdentity(p.getProperty("node"), InstallationId.of(p.getProperty("installation")),
                    Instant.parse(p.getProperty("created")));
        } catch (DateTimeParseException e) {
            throw new IllegalArgumentException("created is not a time", e);
        }
    }
}
