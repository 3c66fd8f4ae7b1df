package pillar.agent.nfs;

import java.nio.file.Path;
import java.util.Objects;

/**
 * One line of the export table: {@code path} exported to one {@code client} with file-system id
 * {@code fsid} ("" when the listing shows none: not an export this agent made), {@code access}, {@code squash}
 * and the {@code transport} it admits.
 */
public record NfsExport(Path path, NfsClient client, String fsid, NfsAccess access, NfsSquash squash, NfsTransport transport) {
    public NfsExport {
        Objects.requireNonNull(path, "path");
        Objects.requireNonNull(client, "client");
        Objects.requireNonNull(fsid, "fsid");
        Objects.requireNonNull(access, "access");
        Objects.requireNonNull(squash, "squash");
        Objects.requireNonNull(transport, "transport");
    }

    /** An entry admitting any transport. */
    public NfsExport(Path path, NfsClient client, String fsid, NfsAccess access, NfsSquash squash) {
        this(path, client, fsid, access, squash, NfsTransport.ANY);
    }

    /** An entry without root squashing. */
    public NfsExport(Path path, NfsClient client, String fsid, NfsAccess access) {
        this(path, client, fsid, access, NfsSquash.NO_ROOT_SQUASH);
    }

    /** A read-write entry. */
    public NfsExport(Path path, NfsClient client, String fsid) {
        this(path, client, fsid, NfsAccess.READ_WRITE);
    }
}
