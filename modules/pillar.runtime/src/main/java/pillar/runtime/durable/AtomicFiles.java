package pillar.runtime.durable;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;

/**
 * Durable files that survive a crash at any instant: the old content or the new one, never a torn
 * mix. A write goes to a temporary file in the same directory, is fsynced, renamed over the target,
 * and the directory is fsynced so the rename itself is on disk.
 */
public final class AtomicFiles {
    private static final String TEMP_PREFIX = ".tmp-";

    private AtomicFiles() {
    }

    public static void write(Path target, byte[] content) {
        write(target, content, false);
    }

    /**
     * {@link #write(Path, byte[])} for content only the owner may read (secrets): the file is created
     * with mode 0600 before any byte is written, so no reader ever sees it more open.
     */
    public static void writePrivate(Path target, byte[] content) {
        write(target, content, true);
    }

    private static void write(Path target, byte[] content, boolean ownerOnly) {
        Path dir = target.toAbsolutePath().getParent();
        Path temp = dir.resolve(TEMP_PREFIX + target.getFileName() + "-" + UUID.randomUUID());
        try {
            createDirectories(dir);
            Set<StandardOpenOption> options = Set.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
            FileAttribute<?>[] attributes = ownerOnly
                    ? new FileAttribute<?>[] {PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------"))}
                    : new FileAttribute<?>[0];
            try (FileChannel channel = FileChannel.open(temp, options, attributes)) {
                ByteBuffer buffer = ByteBuffer.wrap(content);
                while (buffer.hasRemaining()) {
                    channel.write(buffer);
                }
                channel.force(true);
            }
            try {
                Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } catch (AtomicMoveNotSupportedException e) {
                throw new IOException("the file system of " + dir + " cannot rename atomically", e);
            }
            syncDirectory(dir);
        } catch (IOException e) {
            try {
                Files.deleteIfExists(temp);
            } catch (IOException ignored) {
                // the temporary file is cleaned up by removeLeftovers on the next start
            }
            throw new UncheckedIOException("cannot write " + target + " durably", e);
        }
    }

    /**
     * The text (UTF-8) of a durable file, or empty when there is none. Any other failure to read it
     * is an {@link UncheckedIOException} naming {@code what}: an unreadable record is never taken for
     * an absent one.
     */
    public static Optional<String> read(Path file, String what) {
        try {
            return Optional.of(Files.readString(file, StandardCharsets.UTF_8));
        } catch (NoSuchFileException e) {
            return Optional.empty();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + what + " " + file, e);
        }
    }

    /** Deletes a durable file, if present, and makes the deletion durable. */
    public static void delete(Path target) {
        try {
            if (Files.deleteIfExists(target)) {
                syncDirectory(target.toAbsolutePath().getParent());
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot delete " + target + " durably", e);
        }
    }

    /**
     * Creates {@code dir} and its missing parents durably: after each new directory, the directory that
     * holds it is fsynced, so that a crash cannot lose the directory (and every record later renamed
     * into it, each fsynced itself) once this returns. An existing directory is left as it is.
     */
    public static void createDirectories(Path dir) {
        Path absolute = dir.toAbsolutePath().normalize();
        java.util.Deque<Path> missing = new java.util.ArrayDeque<>();
        for (Path p = absolute; p != null && !Files.isDirectory(p); p = p.getParent()) {
            missing.push(p);
        }
        try {
            while (!missing.isEmpty()) {
                Path created = missing.pop();
                try {
                    Files.createDirectory(created);
                } catch (java.nio.file.FileAlreadyExistsException e) {
                    if (!Files.isDirectory(created)) {
                        throw e;
                    }
                }
                syncDirectory(created.getParent());
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create the directory " + absolute + " durably", e);
        }
    }

    /**
     * Moves the directory {@code source} to {@code target} with one rename, durably: {@code target}'s
     * missing parents are created first ({@link #createDirectories}), the rename is atomic (a crash
     * leaves the directory whole at one place or the other, never split or copied), and both parent
     * directories are fsynced after it. {@code target} must be absent or an empty directory (which
     * the rename replaces); both must be on one file system, or nothing moves.
     *
     * @throws UncheckedIOException naming both, when nothing moved (or the move was not made durable)
     */
    public static void moveDirectory(Path source, Path target) {
        Path from = source.toAbsolutePath().normalize();
        Path to = target.toAbsolutePath().normalize();
        createDirectories(to.getParent());
        try {
            try {
                Files.move(from, to, StandardCopyOption.ATOMIC_MOVE);
            } catch (AtomicMoveNotSupportedException e) {
                throw new IOException(from + " and " + to + " are not on one file system: a rename cannot move it", e);
            }
            syncDirectory(to.getParent());
            if (!from.getParent().equals(to.getParent())) {
                syncDirectory(from.getParent());
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot move the directory " + from + " to " + to + " (" + e.getMessage() + ")", e);
        }
    }

    /** Whether a file name is one of this class's temporary files, which readers must skip. */
    public static boolean isTemporary(Path file) {
        return file.getFileName().toString().startsWith(TEMP_PREFIX);
    }

    /** Removes temporary files a crash left behind in {@code dir}. */
    public static void removeLeftovers(Path dir) {
        if (!Files.isDirectory(dir)) {
            return;
        }
        try (var files = Files.list(dir)) {
            for (Path file : (Iterable<Path>) files.filter(AtomicFiles::isTemporary)::iterator) {
                Files.deleteIfExists(file);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot clean " + dir, e);
        }
    }

    private static void syncDirectory(Path dir) throws IOException {
        try (FileChannel channel = FileChannel.open(dir, StandardOpenOption.READ)) {
            channel.force(true);
        }
    }
}
