package pillar.agent.configfs;

import java.io.IOException;
import java.lang.System.Logger.Level;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.stream.Stream;

/**
 * The configfs primitives the adapter is built from: every one turns the kernel's refusal into an
 * {@link NvmetTargetException} naming the path, the error and a hint, and every attribute write is
 * read back. Idempotent forms ("if absent", "if present", "only when different") are the norm, because
 * the kernel refuses some writes of an unchanged value (device_path of an enabled namespace: EBUSY;
 * addr_* of an enabled port: EACCES).
 */
final class ConfigfsFiles {
    private static final System.Logger LOG = System.getLogger(ConfigfsFiles.class.getName());

    private final Path root;
    private final Path nvmet;

    ConfigfsFiles(Path root) {
        this.root = root.toAbsolutePath().normalize();
        this.nvmet = this.root.resolve("nvmet");
    }

    /** {@code <root>/nvmet}: holds {@code hosts/}, {@code ports/}, {@code subsystems/}. */
    Path nvmet() {
        return nvmet;
    }

    static boolean exists(Path path) {
        return Files.exists(path, LinkOption.NOFOLLOW_LINKS);
    }

    /** The attribute's value without the kernel's trailing newline. */
    String read(Path file) {
        try {
            return stripNewline(Files.readString(file));
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
        LOG.log(Level.INFO, "{0}: ''{1}'' -> ''{2}''", file, before, value);
        return true;
    }

    /** Writes to an attribute that cannot be read back (write-only, such as {@code revalidate_size}). */
    void trigger(Path file, String value, String hint) {
        write(file, value, hint);
        LOG.log(Level.INFO, "{0} <- ''{1}''", file, value);
    }

    private void write(Path file, String value, String hint) {
        try {
            // no CREATE: a missing attribute is an error, not a new file
            Files.writeString(file, value, StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING);
        } catch (IOException e) {
            throw failure("write '" + value + "' to", file, e, hint);
        }
    }

    /** Creates the directory (the kernel fills in its attributes) unless it exists. */
    void mkdirIfAbsent(Path dir, String hint) {
        try {
            Files.createDirectory(dir);
            LOG.log(Level.INFO, "created {0}", dir);
        } catch (FileAlreadyExistsException e) {
            if (!Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) {
                throw failure("create directory", dir, e, "it exists but is not a directory");
            }
        } catch (IOException e) {
            throw failure("create directory", dir, e, hint);
        }
    }

    /** Removes the directory unless it is absent. */
    void rmdirIfPresent(Path dir, String hint) {
        try {
            Files.delete(dir);
            LOG.log(Level.INFO, "removed {0}", dir);
        } catch (NoSuchFileException e) {
            // already gone
        } catch (IOException e) {
            throw failure("remove directory", dir, e, hint);
        }
    }

    /** Creates {@code link} pointing at {@code target} (absolute: the kernel resolves it from the caller's cwd). */
    void symlink(Path link, Path target, String hint) {
        try {
            Files.createSymbolicLink(link, target.toAbsolutePath());
            LOG.log(Level.INFO, "linked {0} -> {1}", link, target);
        } catch (IOException e) {
            throw failure("create symbolic link", link, e, hint);
        }
    }

    /** Removes a symbolic link unless it is absent. */
    void unlinkIfPresent(Path link, String hint) {
        try {
            Files.delete(link);
            LOG.log(Level.INFO, "unlinked {0}", link);
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
            Path target = Files.readSymbolicLink(link);
            Path name = target.getFileName();
            return name == null ? "" : name.toString();
        } catch (IOException e) {
            throw failure("read symbolic link", link, e, "");
        }
    }

    /** The links in {@code dir} that point at an item named {@code name}. */
    List<Path> linksTo(Path dir, String name) {
        return list(dir).stream().filter(Files::isSymbolicLink).filter(l -> linkTarget(l).equals(name)).toList();
    }

    /** The entries of a directory, sorted; an absent directory has none. */
    List<Path> list(Path dir) {
        try (Stream<Path> entries = Files.list(dir)) {
            return entries.sorted().toList();
        } catch (NoSuchFileException e) {
            if (!Files.isDirectory(nvmet)) {
                throw failure("list", dir, e, "");
            }
            return List.of();
        } catch (IOException e) {
            throw failure("list", dir, e, "");
        }
    }

    /** The directory must exist (a precondition of the operation, e.g. a subsystem before its namespace). */
    void requireDirectory(Path dir, String what) {
        if (!Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) {
            throw new NvmetTargetException(what + " does not exist: " + dir + nvmetHint(), dir);
        }
    }

    NvmetTargetException failure(String action, Path path, IOException e, String hint) {
        String message = "cannot " + action + " " + path + ": the kernel answered " + Errno.describe(e)
                + (hint.isEmpty() ? "" : "; " + hint) + nvmetHint();
        return new NvmetTargetException(message, path, Errno.of(e), e);
    }

    /** A hint when the whole nvmet tree is missing, the commonest cause of every other error. */
    private String nvmetHint() {
        if (Files.isDirectory(nvmet)) {
            return "";
        }
        if (!Files.isDirectory(root)) {
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
