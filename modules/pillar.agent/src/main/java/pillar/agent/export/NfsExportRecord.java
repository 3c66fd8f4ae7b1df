package pillar.agent.export;

import java.io.IOException;
import java.io.StringReader;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Comparator;
import java.util.Properties;
import java.util.Set;
import java.util.stream.Collectors;

import pillar.agent.nfs.NfsClient;
import pillar.agent.nfs.NfsFsid;
import pillar.agent.nfs.NfsServer;
import pillar.api.value.VolumeId;

/**
 * The durable record of one volume's NFS export, the sibling of {@link ExportRecord} in the same
 * {@link ExportStore} (one file per volume; {@code protocol=nfs} tells them apart, so NVMe-oF records
 * written before it read as they did): what start-up re-applies to nfsd and drift is measured against.
 * The fsid is not stored: it is {@link NfsFsid#of} the volume, the same on every re-apply.
 *
 * @param volume  the exported volume
 * @param backend the zfs-dataset backend it lives on
 * @param path    the dataset's mount path, exported
 * @param server  the server's address the nodes mount from (an IP literal)
 * @param clients the client addresses allowed, one export entry each
 */
public record NfsExportRecord(VolumeId volume, String backend, Path path, NfsClient server, Set<NfsClient> clients) {
    static final String PROTOCOL_LINE = "protocol=nfs";

    public NfsExportRecord {
        NfsServer.requireExportable(path);
        clients = Set.copyOf(clients);
    }

    public NfsFsid fsid() {
        return NfsFsid.of(volume);
    }

    public NfsExportRecord withPath(Path newPath) {
        return new NfsExportRecord(volume, backend, newPath, server, clients);
    }

    public NfsExportRecord withClients(Set<NfsClient> newClients) {
        return new NfsExportRecord(volume, backend, path, server, newClients);
    }

    String encode() {
        return "version=1\n" + PROTOCOL_LINE + "\n"
                + "volume=" + volume.value() + "\n"
                + "backend=" + backend + "\n"
                + "path=" + path + "\n"
                + "server=" + server.text() + "\n"
                + "clients=" + clients.stream().map(NfsClient::text).sorted(Comparator.naturalOrder()).collect(Collectors.joining(",")) + "\n";
    }

    /** Whether this record text is an NFS one (an NVMe-oF record has no protocol line). */
    static boolean isNfs(String text) {
        return text.lines().anyMatch(line -> line.strip().equals(PROTOCOL_LINE));
    }

    /** Parses {@link #encode()}; anything else throws {@link IllegalArgumentException}. */
    static NfsExportRecord parse(String text) {
        Properties p = new Properties();
        try {
            p.load(new StringReader(text));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        if (!"1".equals(p.getProperty("version")) || !"nfs".equals(p.getProperty("protocol")) || p.size() != 7) {
            throw new IllegalArgumentException("nfs export record: unknown version or missing fields");
        }
        String clients = p.getProperty("clients");
        return new NfsExportRecord(VolumeId.of(p.getProperty("volume")), p.getProperty("backend"), Path.of(p.getProperty("path")),
                NfsClient.parse("server", p.getProperty("server")), clients.isEmpty() ? Set.of()
                        : Arrays.stream(clients.split(",")).map(c -> NfsClient.parse("clients", c)).collect(Collectors.toSet()));
    }
}
