package pillar.agent.configfs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.NoSuchFileException;

import org.junit.jupiter.api.Test;

/** The kernel's error is recognised in every form java.nio reports it. */
class ErrnoTest {
    private static final String P = "/sys/kernel/config/nvmet/subsystems/x";

    @Test
    void typedExceptions() {
        assertThat(Errno.of(new NoSuchFileException(P))).isEqualTo(Errno.ENOENT);
        assertThat(Errno.of(new FileAlreadyExistsException(P))).isEqualTo(Errno.EEXIST);
        assertThat(Errno.of(new AccessDeniedException(P))).isEqualTo(Errno.EACCES);
        assertThat(Errno.of(new DirectoryNotEmptyException(P))).isEqualTo(Errno.ENOTEMPTY);
    }

    @Test
    void fileSystemExceptionReason() {
        // Files.delete of a busy configfs directory (rmdir: EBUSY)
        assertThat(Errno.of(new FileSystemException(P, null, "Device or resource busy"))).isEqualTo(Errno.EBUSY);
        assertThat(Errno.of(new FileSystemException(P, null, "Invalid argument"))).isEqualTo(Errno.EINVAL);
    }

    @Test
    void plainIoExceptionFromWrite() {
        // a failed write(2) on an open attribute arrives as a plain IOException with strerror's text
        assertThat(Errno.of(new IOException("Permission denied"))).isEqualTo(Errno.EACCES);
        assertThat(Errno.of(new IOException("Device or resource busy"))).isEqualTo(Errno.EBUSY);
        assertThat(Errno.of(new IOException("Address already in use"))).isEqualTo(Errno.EADDRINUSE);
        assertThat(Errno.of(new IOException("Cannot assign requested address"))).isEqualTo(Errno.EADDRNOTAVAIL);
    }

    @Test
    void unknownKeepsTheText() {
        IOException odd = new IOException("Stale file handle");
        assertThat(Errno.of(odd)).isEqualTo(Errno.OTHER);
        assertThat(Errno.describe(odd)).isEqualTo("Stale file handle");
        assertThat(Errno.describe(new IOException())).isEqualTo("IOException");
        assertThat(Errno.describe(new FileSystemException(P, null, "Device or resource busy")))
                .isEqualTo("EBUSY (Device or resource busy)");
    }
}
