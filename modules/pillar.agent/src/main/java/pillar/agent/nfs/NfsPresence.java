package pillar.agent.nfs;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * Whether this host's kernel NFS server serves, as docs/nfs.md's set-up runs it: nfsd started with
 * NFSv4.2 ({@code /proc/fs/nfsd/versions} lists {@code +4.2}) and {@code rpc.mountd} running (it answers
 * nfsd's export upcalls; without it no client mounts). Reads /proc only.
 */
public final class NfsPresence {
    /** The reason of the Problem a zfs-dataset backend reports when the NFS server does not serve. */
    public static final String REASON = "NfsServerMissing";

    private NfsPresence() {
    }

    /** Why NFS cannot be served here, for a person to act on; empty when nfsd and mountd serve. */
    public static Optional<String> problem(Path procRoot) {
        Path versions = procRoot.resolve("fs/nfsd/versions");
        String text;
        try {
            text = Files.readString(versions).strip();
        } catch (IOException e) {
            return Optional.of("nfsd does not run: " + versions + " cannot be read (load the nfsd module, mount the nfsd"
                    + " filesystem and start rpc.nfsd -V 4.2)");
        }
        if (!List.of(text.split("\\s+")).contains("+4.2")) {
            return Optional.of("nfsd does not serve NFSv4.2 (" + versions + ": " + text.replaceAll("[^\\x20-\\x7e]", "?")
                    + "); start it with rpc.nfsd -V 4.2");
        }
        if (!mountdRuns(procRoot)) {
            return Optional.of("rpc.mountd does not run: nfsd cannot check its exports and no node can mount");
        }
        return Optional.empty();
    }

    private static boolean mountdRuns(Path procRoot) {
        try (DirectoryStream<Path> processes = Files.newDirectoryStream(procRoot, p -> p.getFileName().toString().matches("[0-9]+"))) {
            for (Path process : processes) {
                try {
                    if (Files.readString(process.resolve("comm")).strip().equals("rpc.mountd")) {
                        return true;
                    }
                } catch (IOException gone) {
                    // the process ended meanwhile
                }
            }
        } catch (IOException e) {
            return false;
        }
        return false;
    }
}
