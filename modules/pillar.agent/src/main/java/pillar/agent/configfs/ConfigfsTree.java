package pillar.agent.configfs;

import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;

/**
 * The file-system calls the adapter makes on configfs, one method per system call, so that the same
 * {@link ConfigfsNvmetTarget} runs against the kernel ({@link KernelConfigfsTree}: java.nio on the
 * mounted tree) and against the tests' model of nvmet ({@code FakeConfigfsTree}).
 *
 * <p><b>Errors</b> are the {@link IOException}s java.nio throws on Linux for the kernel's error number,
 * so that {@link Errno} and the hints of {@link ConfigfsFiles} work the same on both: ENOENT is a
 * {@link NoSuchFileException}, EEXIST a {@link FileAlreadyExistsException}, EACCES when opening an
 * attribute an {@link AccessDeniedException}, ENOTEMPTY of an rmdir a {@link DirectoryNotEmptyException},
 * any other error of a call on a path a {@link FileSystemException} whose reason is the C library's text
 * ("Device or resource busy"); an error of the {@code write(2)} or {@code read(2)} on an attribute that
 * opened is a plain {@link IOException} carrying that text ("Permission denied").
 *
 * <p>Paths are absolute, under the configfs mount point.
 */
interface ConfigfsTree {

    /** What is at a path, without following a final symbolic link. */
    enum Kind { ABSENT, ATTRIBUTE, DIRECTORY, LINK }

    /** {@code lstat}: never fails; {@link Kind#ABSENT} when nothing is there or it cannot be looked at. */
    Kind kind(Path path);

    /** The attribute's whole text as the kernel shows it, trailing newline included. */
    String read(Path attribute) throws IOException;

    /**
     * Opens the attribute for writing without creating it ({@code O_WRONLY|O_TRUNC}) and writes
     * {@code value} in one {@code write(2)}; an empty value opens and writes nothing.
     */
    void write(Path attribute, String value) throws IOException;

    /** {@code mkdir(2)}: configfs makes the item and fills in its attributes and default groups. */
    void mkdir(Path dir) throws IOException;

    /** Removes the directory of an item ({@code rmdir(2)}). */
    void rmdir(Path dir) throws IOException;

    /** {@code symlink(2)} of {@code link} to {@code target}, which must be absolute. */
    void symlink(Path link, Path target) throws IOException;

    /** {@code readlink(2)}: configfs answers a path relative to the link's directory. */
    Path readlink(Path link) throws IOException;

    /** Removes a symbolic link ({@code unlink(2)}). */
    void unlink(Path link) throws IOException;

    /** The entries of a directory, in no particular order. */
    List<Path> list(Path dir) throws IOException;

    /** Whether {@code path} is on a configfs file system (false when it does not exist or cannot be looked at). */
    boolean isConfigfs(Path path);
}
