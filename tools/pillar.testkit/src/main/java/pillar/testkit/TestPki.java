package pillar.testkit;

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
 * A throw-away certificate authority writing PEM files into a directory, as cert-manager would mount
 * them. The CA {@code CN=<name> CA} (valid 30 days) is {@code <name>-ca.crt}; a certificate issued for
 * {@code cn} is {@code <name>-<cn>.crt} and {@code <name>-<cn>.key} (PKCS#8), so issuing the same
 * {@code cn} again renews the files in place. Every issued certificate is an end entity for 127.0.0.1
 * and the DNS names given, nothing else; keys are EC P-256; serial numbers are unique in the JVM.
 */
public final class TestPki {
    private static final AtomicLong SERIAL = new AtomicLong(1);
    private static final char[] PASSWORD = "test".toCharArray();

    private final Path dir;
    private final String name;
    private final KeyPair caKeys;
    private final X509Certificate caCert;

    /** A new CA named {@code name}; writes its certificate to {@link #caFile()}. */
    public TestPki(Path dir, String name) throws Exception {
        this.dir = dir;
        this.name = name;
        this.caKeys = keyPair();
        this.caCert = sign(issuer(), caKeys, true, BigInteger.valueOf(SERIAL.getAndIncrement()),
                Instant.now().plus(Duration.ofDays(30)));
        write(caFile(), "CERTIFICATE", caCert.getEncoded());
    }

    /** The CA's certificate, PEM. */
    public Path caFile() {
        return dir.resolve(name + "-ca.crt");
    }

    /** {@link #issue(String, Instant, String...)} valid for a day. */
    public Issued issue(String cn, String... dnsNames) throws Exception {
        return issue(cn, Instant.now().plus(Duration.ofDays(1)), dnsNames);
    }

    /**
     * Issues a certificate for 127.0.0.1 and the DNS names, valid from an hour ago until {@code notAfter}
     * (in the past for an expired one: then from a day before it).
     */
    public Issued issue(String cn, Instant notAfter, String... dnsNames) throws Exception {
        KeyPair keys = keyPair();
        BigInteger serial = BigInteger.valueOf(SERIAL.getAndIncrement());
        X509Certificate cert = sign(new X500Name("CN=" + cn), keys, false, serial, notAfter, dnsNames);
        Path certFile = dir.resolve(name + "-" + cn + ".crt");
        Path keyFile = dir.resolve(name + "-" + cn + ".key");
        write(certFile, "CERTIFICATE", cert.getEncoded());
        // PKCS#8, the encoding the chart asks cert-manager for
        write(keyFile, "PRIVATE KEY", keys.getPrivate().getEncoded());
        return new Issued(certFile, keyFile, caFile(), serial);
    }

    /** An issued certificate's files, its CA's certificate file and its serial number. */
    public record Issued(Path cert, Path key, Path ca, BigInteger serial) {
    }

    /**
     * A server context presenting a new certificate of this CA (for 127.0.0.1 and the DNS names, valid
     * for a day; no files written) and trusting this CA alone for client certificates.
     */
    public SSLContext serverContext(String cn, String... dnsNames) throws Exception {
        KeyPair keys = keyPair();
        X509Certificate cert = sign(new X500Name("CN=" + cn), keys, false, BigInteger.valueOf(SERIAL.getAndIncrement()),
                Instant.now().plus(Duration.ofDays(1)), dnsNames);
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

    /** Writes the CA certificates of the PKIs into one bundle file, as during a CA rotation. */
    public static Path bundle(Path file, TestPki... pkis) throws IOException {
        StringBuilder pem = new StringBuilder();
        for (TestPki pki : pkis) {
            pem.append(Files.readString(pki.caFile()));
        }
        Files.writeString(file, pem);
        return file;
    }

    private X500Name issuer() {
        return new X500Name("CN=" + name + " CA");
    }

    /** Signed by this CA's key: the CA's own certificate ({@code ca}) or an end entity's. */
    private X509Certificate sign(X500Name subject, KeyPair subjectKeys, boolean ca, BigInteger serial, Instant notAfter,
                                 String... dnsNames) throws Exception {
        Instant anHourAgo = Instant.now().minus(Duration.ofHours(1));
        Instant dayBeforeEnd = notAfter.minus(Duration.ofDays(1));
        Instant notBefore = dayBeforeEnd.isBefore(anHourAgo) ? dayBeforeEnd : anHourAgo;
        JcaX509v3CertificateBuilder builder = new JcaX509v3CertificateBuilder(issuer(), serial, Date.from(notBefore),
                Date.from(notAfter), subject, subjectKeys.getPublic());
        builder.addExtension(Extension.basicConstraints, true, new BasicConstraints(ca));
        if (!ca) {
            GeneralName[] names = new GeneralName[dnsNames.length + 1];
            names[0] = new GeneralName(GeneralName.iPAddress, "127.0.0.1");
            for (int i = 0; i < dnsNames.length; i++) {
                names[i + 1] = new GeneralName(GeneralName.dNSName, dnsNames[i]);
            }
            builder.addExtension(Extension.subjectAlternativeName, false, new GeneralNames(names));
        }
        return new JcaX509CertificateConverter().getCertificate(
                builder.build(new JcaContentSignerBuilder("SHA256withECDSA").build(caKeys.getPrivate())));
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
