package pillar.runtime.server;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.security.cert.CertificateParsingException;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import java.util.logging.Logger;

import javax.net.ssl.X509ExtendedKeyManager;
import javax.net.ssl.X509ExtendedTrustManager;

/**
 * A mutual-TLS identity kept as PEM files (a certificate chain, its PKCS#8 key, the CA bundle that
 * verifies peers), read again whenever one of them changes on disk: a rewritten file, or the
 * {@code ..data} symlink of a Secret volume flipped to a new directory.
 *
 * <p>Invariant: {@link #current()} always answers credentials that loaded completely (the key
 * matches its certificate, every file parses). Files that are half-written, missing or mismatched
 * keep the previous credentials and log one warning per state of the files; they are tried again
 * at the next call. Only the first load may fail, so that a bad configuration refuses to start.
 * A certificate that carries one of its {@link PeerNames} is not usable either: at start it refuses
 * to start, renewed it keeps the previous credentials.
 */
public final class CertificateFiles {
    private static final Logger LOG = Logger.getLogger(CertificateFiles.class.getName());

    private final Path cert;
    private final Path key;
    private final Path ca;
    private final String setting;
    private final PeerNames peers;
    private Loaded current;
    private List<Object> warnedStamps = List.of();

    /**
     * Reads the files now.
     *
     * @param setting the configuration key that names the files, quoted in messages ({@code agent.tls})
     * @throws IllegalArgumentException when they are missing, unreadable or do not form an identity
     */
    public CertificateFiles(Path cert, Path key, Path ca, String setting) {
        this(cert, key, ca, setting, PeerNames.none());
    }

    /**
     * Reads the files now; their certificate must carry none of {@code peers}' names.
     *
     * @throws IllegalArgumentException when they are missing, unreadable, do not form an identity or
     *                                  name a peer
     */
    public CertificateFiles(Path cert, Path key, Path ca, String setting, PeerNames peers) {
        this.cert = cert;
        this.key = key;
        this.ca = ca;
        this.setting = setting;
        this.peers = peers;
        try {
            this.current = load(stamps(), 1);
        } catch (IOException | IllegalArgumentException e) {
            throw new IllegalArgumentException(setting + ": cannot read the certificate, key or CA: " + e.getMessage(), e);
        }
    }

    /** The credentials of the files as they are now, or the last ones that loaded when they are not usable. */
    public synchronized Loaded current() {
        List<Object> now;
        try {
            now = stamps();
        } catch (IOException e) {
            warnOnce(List.of(e.toString()), "missing: " + e.getMessage());
            return current;
        }
        if (now.equals(current.stamps())) {
            return current;
        }
        try {
            current = load(now, current.epoch() + 1);
            LOG.info(() -> setting + ": read renewed certificate files " + cert + ", " + key + ", " + ca
                    + " (credentials #" + current.epoch() + ")");
        } catch (IllegalArgumentException e) {
            warnOnce(now, e.getMessage());
        }
        return current;
    }

    private void warnOnce(List<Object> stamps, String reason) {
        if (!stamps.equals(warnedStamps)) {
            warnedStamps = stamps;
            LOG.warning(setting + ": the certificate files are not usable, keeping credentials #" + current.epoch()
                    + " (a renewal half-written? tried again at the next connection): " + reason);
        }
    }

    private Loaded load(List<Object> stamps, long epoch) {
        var keyManager = (X509ExtendedKeyManager) PemFiles.keyManagers(cert, key)[0];
        var trustManager = (X509ExtendedTrustManager) PemFiles.trustManagers(ca)[0];
        List<String> names = ownNames();
        return new Loaded(keyManager, trustManager, epoch, stamps, names);
    }

    private List<String> ownNames() {
        X509Certificate leaf = (X509Certificate) PemFiles.certificates(cert).getFirst();
        List<String> names;
        try {
            names = CertificateNames.dnsNames(leaf);
        } catch (CertificateParsingException e) {
            throw new IllegalArgumentException(cert + ": unreadable subjectAltName: " + e.getMessage(), e);
        }
        List<String> clash = names.stream().filter(peers.names()::contains).toList();
        if (!clash.isEmpty()) {
            throw new IllegalArgumentException(cert + " names " + clash + " (subjectAltName DNS), a peer's name in "
                    + peers.setting() + " " + new TreeSet<>(peers.names()) + ": its holder could pass for that peer."
                    + " Give this workload a certificate of its own name");
        }
        return names;
    }

    /** What identifies each file's content: modification time, inode and size, through symlinks. */
    private List<Object> stamps() throws IOException {
        List<Object> stamps = new ArrayList<>();
        for (Path file : List.of(cert, key, ca)) {
            BasicFileAttributes attributes = Files.readAttributes(file, BasicFileAttributes.class);
            stamps.add(attributes.lastModifiedTime());
            stamps.add(String.valueOf(attributes.fileKey()));
            stamps.add(attributes.size());
        }
        return List.copyOf(stamps);
    }

    /**
     * Credentials that loaded completely; {@code epoch} grows by one with each reload.
     *
     * @param stamps   the files' state they were read from
     * @param dnsNames the certificate's own subjectAltName DNS names
     */
    public record Loaded(X509ExtendedKeyManager keyManager, X509ExtendedTrustManager trustManager, long epoch,
                         List<Object> stamps, List<String> dnsNames) {
    }
}
