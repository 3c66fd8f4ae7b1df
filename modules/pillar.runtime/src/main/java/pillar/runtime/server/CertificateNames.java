package pillar.runtime.server;

import java.security.cert.CertificateParsingException;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

/** The names a certificate is checked by: its subjectAltName DNS names, in the certificate's order. */
public final class CertificateNames {
    private static final int DNS_NAME = 2;

    private CertificateNames() {
    }

    /** The subjectAltName DNS names of {@code cert}; empty when it has none (its CN is not a name here). */
    public static List<String> dnsNames(X509Certificate cert) throws CertificateParsingException {
        Collection<List<?>> entries = cert.getSubjectAlternativeNames();
        List<String> names = new ArrayList<>();
        if (entries != null) {
            for (List<?> entry : entries) {
                if (entry.get(0) instanceof Integer type && type == DNS_NAME) {
                    names.add((String) entry.get(1));
                }
            }
        }
        return List.copyOf(names);
    }
}
