package pillar.controller.agent;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.attribute.FileTime;
import java.util.List;

import io.grpc.ChannelCredentials;
import io.grpc.TlsChannelCredentials;

/**
 * The controller's mutual-TLS credentials, read from its PEM files and read again when any of
 * them changes on disk. Bad files fail at construction, so the controller refuses to start.
 */
final class TlsCredentials {
    private final AgentTlsFiles files;
    private Current current;

    TlsCredentials(AgentTlsFiles files) {
        this.files = files;
        this.current = load(files, stamps(files), 1);
    }

    /** The credentials of the files as they are now, and their epoch (it grows with each reload). */
    synchronized Current current() {
        try {
            List<FileTime> now = stamps(files);
            if (!now.equals(current.stamps())) {
                current = load(files, now, current.epoch() + 1);
            }
        } catch (IllegalArgumentException | UncheckedIOException e) {
            // files half-written or briefly absent during a renewal: keep what worked, look again next call
        }
        return current;
    }

    private static Current load(AgentTlsFiles files, List<FileTime> stamps, long epoch) {
        try {
            ChannelCredentials credentials = TlsChannelCredentials.newBuilder()
                    .keyManager(PemFiles.keyManagers(files.cert(), files.key()))
                    .trustManager(PemFiles.trustManagers(files.ca()))
                    .build();
            return new Current(credentials, stamps, epoch);
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("agents.tls: cannot read the certificate, key or CA: " + e.getMessage(), e);
        }
    }

    private static List<FileTime> stamps(AgentTlsFiles files) {
        try {
            return List.of(Files.getLastModifiedTime(files.cert()), Files.getLastModifiedTime(files.key()),
                    Files.getLastModifiedTime(files.ca()));
        } catch (IOException e) {
            throw new UncheckedIOException("agents.tls: cannot read " + files, e);
        }
    }

    record Current(ChannelCredentials credentials, List<FileTime> stamps, long epoch) {
    }
}
