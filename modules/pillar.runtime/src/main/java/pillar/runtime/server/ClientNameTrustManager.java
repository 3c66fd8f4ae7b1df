package pillar.runtime.server;

import java.net.Socket;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.util.List;
import java.util.Set;

import javax.net.ssl.SSLEngine;
import javax.net.ssl.X509ExtendedTrustManager;

/**
 * Admits a client only when the CA bundle of {@link CertificateFiles#current()} verifies its chain
 * (signature, validity dates, constraints) and its certificate carries one of the allowed names as
 * a subjectAltName DNS name. A refusal fails the TLS handshake, before any call is read. It
 * verifies clients only: it is a server's trust manager.
 */
final class ClientNameTrustManager extends X509ExtendedTrustManager {
    private final CertificateFiles files;
    private final Set<String> allowed;
    private final String setting;

    /** @param setting the configuration key of {@code allowed}, quoted in refusals */
    ClientNameTrustManager(CertificateFiles files, Set<String> allowed, String setting) {
        if (allowed.isEmpty()) {
            throw new IllegalArgumentException(setting + " is empty: no client could be admitted");
        }
        this.files = files;
        this.allowed = Set.copyOf(allowed);
        this.setting = setting;
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType, SSLEngine engine) throws CertificateException {
        files.current().trustManager().checkClientTrusted(chain, authType, engine);
        checkName(chain);
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType, Socket socket) throws CertificateException {
        files.current().trustManager().checkClientTrusted(chain, authType, socket);
        checkName(chain);
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType) throws CertificateException {
        files.current().trustManager().checkClientTrusted(chain, authType);
        checkName(chain);
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType, SSLEngine engine) throws CertificateException {
        throw new CertificateException("a server's trust manager verifies no servers");
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType, Socket socket) throws CertificateException {
        throw new CertificateException("a server's trust manager verifies no servers");
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType) throws CertificateException {
        throw new CertificateException("a server's trust manager verifies no servers");
    }

    @Override
    public X509Certificate[] getAcceptedIssuers() {
        return files.current().trustManager().getAcceptedIssuers();
    }

    private void checkName(X509Certificate[] chain) throws CertificateException {
        List<String> names = CertificateNames.dnsNames(chain[0]);
        if (names.stream().noneMatch(allowed::contains)) {
            throw new CertificateException("client certificate " + chain[0].getSubjectX500Principal().getName()
                    + " names " + names + " (subjectAltName DNS), none of which is in " + setting + " " + allowed);
        }
    }

}
