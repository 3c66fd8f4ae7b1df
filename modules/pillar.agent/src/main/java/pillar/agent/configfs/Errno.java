package pillar.agent.configfs;

import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.NoSuchFileException;

/**
 * The kernel's error number behind an {@link IOException} from {@code java.nio}. The JDK maps only a
 * few errors to exception types (ENOENT, EEXIST, EACCES, ENOTEMPTY on delete); the rest arrive as a
 * {@link FileSystemException} (reason) or a plain {@link IOException} (message) carrying the C
 * library's {@code strerror} text, which is what this recognises.
 */
public enum Errno {
    ENOENT("No such file or directory"),
    EEXIST("File exists"),
    EACCES("Permission denied"),
    EPERM("Operation not permitted"),
    EBUSY("Device or resource busy"),
    ENOTEMPTY("Directory not empty"),
    EINVAL("Invalid argument"),
    ENODEV("No such device"),
    EADDRINUSE("Address already in use"),
    EADDRNOTAVAIL("Cannot assign requested address"),
    /** Anything else; the exception message keeps the original text. */
    OTHER("");

    private final String strerror;

    Errno(String strerror) {
        this.strerror = strerror;
    }

    /** The C library's text for this error, e.g. "Device or resource busy"; empty for {@link #OTHER}. */
    public String strerror() {
        return strerror;
    }

    /** Which error the kernel returned, as far as the exception tells. */
    public static Errno of(IOException e) {
        if (e instanceof NoSuchFileException) {
            return ENOENT;
        }
        if (e instanceof FileAlreadyExistsException) {
            return EEXIST;
        }
        if (e instanceof AccessDeniedException) {
            return EACCES;
        }
        if (e instanceof DirectoryNotEmptyException) {
            return ENOTEMPTY;
        }
        String text = e instanceof FileSystemException fse ? fse.getReason() : e.getMessage();
        if (text != null) {
            for (Errno errno : values()) {
                if (errno != OTHER && text.contains(errno.strerror)) {
                    return errno;
                }
            }
        }
        return OTHER;
    }

    /** "EBUSY (Device or resource busy)", or the exception's own text for {@link #OTHER}. */
    static String describe(IOException e) {
        Errno errno = of(e);
        if (errno != OTHER) {
            return errno.name() + " (" + errno.strerror + ")";
        }
        String text = e instanceof FileSystemException fse ? fse.getReason() : e.getMessage();
        return text == null || text.isBlank() ? e.getClass().getSimpleName() : text;
    }
}
