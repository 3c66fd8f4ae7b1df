package pillar.agent.configfs;

import java.io.IOException;
import java.lang.System.Logger.Level;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import pillar.agent.configfs.ConfigfsTree.Kind;

/**
 * The configfs primitives the adapter is built from: every one turns the kernel's refusal into an
 * {@link NvmetTargetException} naming the path, the error and a hint, and every attribute write is
 * read back. Idempotent forms ("if absent", "if present", "only when different") are the norm, because
 * the kernel refuses some writes of an unchanged value (device_path of an enabled namespace: EBUSY;
 * addr_* of an enabled port: EACCES).
 */
final class ConfigfsFiles {
    private static final System.Logger LOG = System.getLogger(ConfigfsFiles.class.getName());

    private final ConfigfsTree tree;
    private final Path root;
    private final Path nvmet;

    /** @param root where configfs is mounted; @param tree the calls on it (the kernel's, or a fake's) */
    ConfigfsFiles(Path root, ConfigfsTree tree) {
        this.tree = tree;
        this.root = root.toAbsolutePath().normalize();
        this.nvmet = this.root.resolve("nvmet");
    }

    /** {@code <root>/nvmet}: holds {@code hosts/}, {@code ports/}, {@code subsystems/}. */
    Path nvmet() {
        return nvmet;
    }

    /** Where configfs should be mounted. */
    Path root() {
        return root;
    }

    boolean isConfigfs(Path path) {
        return tree.isConfigfs(path);
    }

    boolean exists(Path path) {
        return tree.kind(path) != Kind.ABSENT;
    }

    boolean isDirectory(Path path) {
        return tree.kind(path) == Kind.DIRECTORY;
    }

    /** The values of those of {@code names} that {@code dir} has (a kernel without an attribute has no file). */
    Map<String, String> attributes(Path dir, List<String> names) {
        Map<String, String> values = new LinkedHashMap<>();
        for (String name : names) {
            Path file = dir.resolve(name);
            if (exists(file)) {
                values.put(name, read(file));
            }
        }
        return values;
    }

    /** The attribute's value without the kernel's trailing newline. */
    String read(Path file) {
        try {
            return stripNewline(tree.read(file));
        } catch (IOException e) {
            throw failure("read", file, e, "");
        }
    }

    /**
     * Writes {@code value} unless the attribute already holds it, then reads it back. Returns whether
     * it wrote.
     */
    boolean ensure(Path file, String value, String hint) {
        String before = read(file);
        if (before.equals(value)) {
            return false;
        }
        write(file, value, hint);
        String after = read(file);
        if (!after.equals(value)) {
            throw new NvmetTargetException("wrote '" + value + "' to " + file + " but the kernel reads back '"
                    + after + "' (it was '" + before + "')", file);
        }
        LOG.log(Level.DEBUG, "{0}: ''{1}'' -> ''{2}''", file, before, value);
        return true;
    }

    /**
     * {@link #ensure} for a secret ({@code dhchap_key}): neither an error nor the log ever shows the
     * value, only whether it was written. {@code "\0"} clears the secret: it reads back as "".
     */
    boolean ensureSecret(Path file, String value, String hint) {
        if (read(file).equals(value)) {
            return false;
        }
        try {
            tree.write(file, value);
        } catch (IOException e) {
            throw failure("write the secret to", file, e, hint);
        }
        if (!read(file).equals(value.equals("\0") ? "" : value)) {
            throw new NvmetTargetException("wrote a secret to " + file + " but the kernel reads back another value", file);
        }
        LOG.log(Level.DEBUG, "{0}: secret written", file);
        return true;
    }

    /** Writes to an attribute that cannot be read back (write-only, such as {@code revalidate_size}). */
    void trigger(Path file, String value, String hint) {
        write(file, value, hint);
        LOG.log(Level.DEBUG, "{0} <- ''{1}''", file, value);
    }

    private void write(Path file, String value, String hint) {
        try {
            tree.write(file, value);
        } catch (IOException e) {
            throw failure("write '" + value + "' to", file, e, hint);
        }
    }

    /** Creates the directory (the kernel fills in its attributes) unless it exists. */
    void mkdirIfAbsent(Path dir, String hint) {
        try {
            tree.mkdir(dir);
            LOG.log(Level.DEBUG, "created {0}", dir);
        } catch (FileAlreadyExistsException e) {
            if (!isDirectory(dir)) {
                throw failure("create directory", dir, e, "it exists but is not a directory");
            }
        } catch (IOException e) {
            throw failure("create directory", dir, e, hint);
        }
    }

    /** Removes the directory unless it is absent. */
    void rmdirIfPresent(Path dir, String hint) {
        try {
            tree.rmdir(dir);
            LOG.log(Level.DEBUG, "removed {0}", dir);
        } catch (NoSuchFileException e) {
            // already gone
        } catch (IOException e) {
            throw failure("remove directory", dir, e, hint);
        }
    }

    /** Creates {@code link} pointing at {@code target} (absolute: the kernel resolves it from the caller's cwd). */
    void symlink(Path link, Path target, String hint) {
        try {
            tree.symlink(link, target.toAbsolutePath());
            LOG.log(Level.DEBUG, "linked {0} -> {1}", link, target);
        } catch (IOException e) {
            throw failure("create symbolic link", link, e, hint);
        }
    }

    /** Removes a symbolic link unless it is absent. */
    void unlinkIfPresent(Path link, String hint) {
        try {
            tree.unlink(link);
            LOG.log(Level.DEBUG, "unlinked {0}", link);
        } catch (NoSuchFileException e) {
            // already gone
        } catch (IOException e) {
            throw failure("remove symbolic link", link, e, hint);
        }
    }

    /**
     * The name of the item a configfs link points at. The link's own name is the caller's choice (the
     * kernel accepts any), so links are matched by target, never by name.
     */
    String linkTarget(Path link) {
        try {
            Path target = tree.readlink(link);
            Path name = target.getFileName();
            return name == null ? "" : name.toString();
        } catch (IOException e) {
            throw failure("read symbolic link", link, e, "");
        }
    }

    /**
     * The links in {@code dir} that point at an item named {@code name}. nvmet keeps at most one link
     * per item in a port's {@code subsystems} and a subsystem's {@code allowed_hosts} (a second is
     * EEXIST) and pillar-csi names it after the item: that name is looked at first, so that a port
     * shared by N subsystems is not read N times per export (a re-apply of N exports was quadratic).
     */
    List<Path> linksTo(Path dir, String name) {
        Path named = dir.resolve(name);
        if (tree.kind(named) == Kind.LINK && linkTarget(named).equals(name)) {
            return List.of(named);
        }
        return list(dir).stream().filter(l -> tree.kind(l) == Kind.LINK).filter(l -> linkTarget(l).equals(name)).toList();
    }

    /**
     * Links {@code dir/<target's name>} to {@code target} unless the directory links it already, under
     * that name or (found only when the kernel refuses the link with EEXIST) another one.
     */
    void linkOnce(Path dir, Path target, String hint) {
        String name = target.getFileName().toString();
        Path link = dir.resolve(name);
        if (tree.kind(link) == Kind.LINK && linkTarget(link).equals(name)) {
            return;
        }
        try {
            tree.symlink(link, target.toAbsolutePath());
            LOG.log(Level.DEBUG, "linked {0} -> {1}", link, target);
        } catch (FileAlreadyExistsException e) {
            if (linksTo(dir, name).isEmpty()) {
                throw failure("create symbolic link", link, e, hint);
            }
        } catch (IOException e) {
            throw failure("create symbolic link", link, e, hint);
        }
    }

    /** The entries of a directory, sorted; an absent directory has none. */
    List<Path> list(Path dir) {
        try {
            return tree.list(dir).stream().sorted(Comparator.naturalOrder()).toList();
        } catch (NoSuchFileException e) {
            if (!isDirectory(nvmet)) {
                throw failure("list", dir, e, "");
            }
            return List.of();
        } catch (IOException e) {
            throw failure("list", dir, e, "");
        }
    }

    /** The directory must exist (a precondition of the operation, e.g. a subsystem before its namespace). */
    void requireDirectory(Path dir, String what) {
        if (!isDirectory(dir)) {
            throw new NvmetTargetException(what + " does not exist: " + dir + nvmetHint(), dir);
        }
    }

    NvmetTargetException failure(String action, Path path, IOException e, String hint) {
        if (e instanceof ConfigfsTimeoutException) {
            return new NvmetTargetException("cannot " + action + " " + path + ": " + e.getMessage(), path, Errno.OTHER, e);
        }
        String message = "cannot " + action + " " + path + ": the kernel answered " + Errno.describe(e)
                + (hint.isEmpty() ? "" : "; " + hint) + nvmetHint();
        return new NvmetTargetException(message, path, Errno.of(e), e);
    }

    /** A hint when the whole nvmet tree is missing, the commonest cause of every other error. */
    private String nvmetHint() {
        if (isDirectory(nvmet)) {
            return "";
        }
        if (!isDirectory(root)) {
            return "; " + root + " does not exist: is configfs mounted there"
                    + " (mount -t configfs none " + root + ") and are the nvmet modules loaded (modprobe nvmet nvmet-tcp)?";
        }
        return "; " + nvmet + " does not exist: are the nvmet modules loaded (modprobe nvmet nvmet-tcp)"
                + " and is configfs mounted at " + root + "?";
    }

    static String stripNewline(String value) {
        return value.endsWith("\n") ? value.substring(0, value.length() - 1) : value;
    }
}
