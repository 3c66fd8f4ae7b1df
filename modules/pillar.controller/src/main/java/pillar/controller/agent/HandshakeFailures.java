package pillar.controller.agent;

import java.security.cert.CertificateException;

/**
 * Why a TLS handshake with an agent failed, in words: gRPC's status says only "io exception" and
 * its OpenSSL engine "General OpenSslEngine problem", while the reason (a certificate for another
 * name, an unknown CA, an expired one) is a cause further down.
 */
final class HandshakeFailures {
    private HandshakeFailures() {
    }

    /** "; the agent's certificate was refused: REASON" when a certificate check failed below {@code failure}, else "". */
    static String reason(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof CertificateException && t.getMessage() != null) {
                return "; the agent's certificate was refused: " + t.getMessage();
            }
        }
        return "";
    }
}
