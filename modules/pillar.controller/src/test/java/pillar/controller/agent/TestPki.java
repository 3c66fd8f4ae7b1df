package pillar.controller.agent;

import java.io.IOException;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.Date;
import java.util.concurrent.atomic.AtomicLong;

import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/**
 * A throw-away certificate authority: PEM files for the controller (as cert-manager would mount
 * them) and an SSLContext for a test agent that requires a client certificate from it.
 */
final class TestPki {
    private static final AtomicLong SERIAL = new AtomicLong(1);
    private static final char[] PASSWORD = "test".toCharArray();

    private final KeyPair caKeys;
    private final X509Certificate caCert;
    private final Path dir;
    private final String name;

    TestPki(Path dir, String name) throws Exception {
        this.dir = dir;
        this.name = name;
        this.caKeys = keyPair();
        this.caCert = sign(new X500Name("CN=" + name + " CA"), caKeys, true);
        write(caFile(), "CERTIFICATE", caCert.getEncoded());
    }

    Path caFile() {
        return dir.resolve(name + "-ca.crt");
    }

    /** A client or server certificate for 127.0.0.1 and localhost, as PEM files. */
    AgentTlsFiles issueFiles(String cn) throws Exception {
        return issueFiles(cn, "localhost");
    }

    /** A client or server certificate for 127.0.0.1 and these DNS names, as PEM files. */
    AgentTlsFiles issueFiles(String cn, String... dnsNames) throws Exception {
        KeyPair keys = keyPair();
        X509Certificate cert = sign(new X500Name("CN=" + cn), keys, false, dnsNames);
        Path certFile = dir.resolve(name + "-" + cn + ".crt");
        Path keyFile = dir.resolve(name + "-" + cn + ".key");
        write(certFile, "CERTIFICATE", cert.getEncoded());
        write(keyFile, "PRIVATE KEY", keys.getPrivate().getEncoded());
        return new AgentTlsFiles(certFile, keyFile, caFile());
    }

    /** A server context presenting a certificate of this CA and trusting only this CA's clients. */
    SSLContext serverContext(String cn) throws Exception {
        return serverContext(cn, "localhost");
    }

    /** {@link #serverContext(String)} with a certificate for 127.0.0.1 and these DNS names. */
    SSLContext serverContext(String cn, String... dnsNames) throws Exception {
        KeyPair keys = keyPair();
        X509Certificate cert = sign(new X500Name("CN=" + cn), keys, false, dnsNames);
        KeyStore keyStore = KeyStore.getInstance("PKCS12");
        keyStore.load(null, null);
        keyStore.setKeyEntry("server", keys.getPrivate(), PASSWORD, new Certificate[] {cert, caCert});
        KeyManagerFactory keyManagers = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        keyManagers.init(keyStore, PASSWORD);
        KeyStore trustStore = KeyStore.getInstance("PKCS12");
        trustStore.load(null, null);
        trustStore.setCertificateEntry("ca", caCert);
        TrustManagerFactory trustManagers = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        trustManagers.init(trustStore);
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(keyManagers.getKeyManagers(), trustManagers.getTrustManagers(), null);
        return context;
    }

    private X509Certificate sign(X500Name subject, KeyPair subjectKeys, boolean ca, String... dnsNames) throws Exception {
        Instant now = Instant.now();
        JcaX509v3CertificateBuilder builder = new JcaX509v3CertificateBuilder(new X500Name("CN=" + name + " CA"),
                BigInteger.valueOf(SERIAL.getAndIncrement()), Date.from(now.minus(Duration.ofHours(1))),
                Date.from(now.plus(Duration.ofDays(1))), subject, subjectKeys.getPublic());
        builder.addExtension(Extension.basicConstraints, true, new BasicConstraints(ca));
        if (!ca) {
            GeneralName[] names = new GeneralName[dnsNames.length + 1];
            names[0] = new GeneralName(GeneralName.iPAddress, "127.0.0.1");
            for (int i = 0; i < dnsNames.length; i++) {
                names[i + 1] = new GeneralName(GeneralName.dNSName, dnsNames[i]);
            }
            builder.addExtension(Extension.subjectAlternativeName, false, new GeneralNames(names));
        }
        KeyPair issuer = ca ? subjectKeys : caKeys;
        return new JcaX509CertificateConverter().getCertificate(
                builder.build(new JcaContentSignerBuilder("SHA256withECDSA").build(issuer.getPrivate())));
    }

    private static KeyPair keyPair() throws Exception {
        KeyPairGenerator generator = KeyPairGenerator.getInstance("EC");
        generator.initialize(256);
        return generator.generateKeyPair();
    }

    private static void write(Path file, String type, byte[] der) throws IOException {
        String body = Base64.getMimeEncoder(64, "\n".getBytes()).encodeToString(der);
        Files.writeString(file, "-----BEGIN " + type + "-----\n" + body + "\n-----END " + type + "-----\n");
    }
}
