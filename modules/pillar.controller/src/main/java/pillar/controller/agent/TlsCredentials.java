package pillar.controller.agent;

import java.util.Set;

import io.grpc.ChannelCredentials;
import io.grpc.TlsChannelCredentials;
import pillar.runtime.server.CertificateFiles;

/**
 * The controller's mutual-TLS credentials, read from its PEM files and read again when any of
 * them changes on disk ({@link CertificateFiles}: unusable files keep the last good credentials).
 * Bad files fail at construction, so the controller refuses to start.
 */
final class TlsCredentials {
    private final CertificateFiles files;
    private Current current;

    TlsCredentials(AgentTlsFiles files) {
        this.files = new CertificateFiles(files.cert(), files.key(), files.ca(), "agents.tls");
        this.current = credentials(this.files.current());
    }

    /** The credentials of the files as they are now, and their epoch (it grows with each reload). */
    synchronized Current current() {
        CertificateFiles.Loaded loaded = files.current();
        if (loaded.epoch() != current.epoch()) {
            current = credentials(loaded);
        }
        return current;
    }

    private static Current credentials(CertificateFiles.Loaded loaded) {
        ChannelCredentials credentials = TlsChannelCredentials.newBuilder()
                .keyManager(loaded.keyManager())
                .trustManager(loaded.trustManager())
                .build();
        return new Current(credentials, loaded.epoch(), Set.copyOf(loaded.dnsNames()));
    }

    /** @param ownNames the controller certificate's subjectAltName DNS names: no agent may be verified by one */
    record Current(ChannelCredentials credentials, long epoch, Set<String> ownNames) {
    }
}
