package pillar.agent.configfs;

import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;

/**
 * An error number the fake kernel returns from a system call, with the C library's text for it (what
 * java.nio puts into its exceptions). Only the numbers nvmet and configfs return to the calls the
 * adapter makes.
 */
final class KernelError extends Exception {
    private static final long serialVersionUID = 1L;

    enum Code {
        EPERM("Operation not permitted"),
        ENOENT("No such file or directory"),
        EACCES("Permission denied"),
        EEXIST("File exists"),
        ENOTDIR("Not a directory"),
        EISDIR("Is a directory"),
        EINVAL("Invalid argument"),
        EBUSY("Device or resource busy"),
        ERANGE("Numerical result out of range"),
        ENAMETOOLONG("File name too long"),
        ENOTEMPTY("Directory not empty"),
        EADDRINUSE("Address already in use"),
        EADDRNOTAVAIL("Cannot assign requested address");

        final String strerror;

        Code(String strerror) {
            this.strerror = strerror;
        }
    }

    final Code code;

    KernelError(Code code) {
        super(code.name() + " (" + code.strerror + ")", null, false, false);
        this.code = code;
    }

    /**
     * The exception java.nio throws on Linux for this error of a call on {@code path} (open, mkdir,
     * symlink, readlink, opendir: {@code UnixException.translateToIOException}).
     */
    IOException onPath(Path path) {
        return switch (code) {
            case ENOENT -> new NoSuchFileException(path.toString());
            case EEXIST -> new FileAlreadyExistsException(path.toString());
            case EACCES -> new AccessDeniedException(path.toString());
            default -> new FileSystemException(path.toString(), null, code.strerror);
        };
    }

    /** As {@link #onPath}, for rmdir by {@code Files.delete}: ENOTEMPTY has its own exception. */
    IOException onRmdir(Path path) {
        return code == Code.ENOTEMPTY ? new DirectoryNotEmptyException(path.toString()) : onPath(path);
    }

    /** The exception of a failed read(2) or write(2) on an open attribute: the C library's text only. */
    IOException onData() {
        return new IOException(code.strerror);
    }
}
