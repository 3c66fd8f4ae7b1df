package pillar.agent.nfs;

import java.nio.file.Path;
import java.util.Objects;

/**
 * One line of the export table: {@code path} exported to one {@code client} with file-system id
 * {@code fsid} ("" when the listing shows none: not an export this agent made).
 */
public record NfsExport(Path path, NfsClient client, String fsid) {
    public NfsExport {
        Objects.requireNonNull(path, "path");
        Objects.requireNonNull(client, "client");
        Objects.requireNonNull(fsid, "fsid");
    }
}
