package pillar.runtime.server;

import java.security.GeneralSecurityException;
import java.util.Set;

import javax.net.ssl.KeyManager;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManager;

import io.helidon.common.tls.Tls;
import io.helidon.common.tls.TlsClientAuth;

/**
 * A server's mutual TLS from {@link CertificateFiles}: each handshake presents the files' current
 * certificate, requires a client certificate, verifies it with the current CA bundle and admits it
 * only when it names an allowed client ({@link ClientNameTrustManager}). Renewed files take effect
 * at the next handshake without a restart; connections already open keep their session, and a
 * session is resumed (without a certificate check) for {@value #SESSION_SECONDS} seconds at most.
 */
public final class MutualTls {
    /** How long a client may resume a session, skipping the certificate checks of a full handshake. */
    static final int SESSION_SECONDS = 300;

    private MutualTls() {
    }

    /**
     * @param clientNames the subjectAltName DNS names a client certificate may carry (one suffices)
     * @param setting     the configuration key of {@code clientNames}, quoted in refusals
     */
    public static Tls server(CertificateFiles files, Set<String> clientNames, String setting) {
        try {
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(new KeyManager[] {new ReloadingKeyManager(files)},
                    new TrustManager[] {new ClientNameTrustManager(files, clientNames, setting)}, null);
            context.getServerSessionContext().setSessionTimeout(SESSION_SECONDS);
            return Tls.builder().sslContext(context).clientAuth(TlsClientAuth.REQUIRED).build();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("the JDK offers no TLS: " + e.getMessage(), e);
        }
    }
}
