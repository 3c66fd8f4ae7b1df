package pillar.agent.service;

import java.io.IOException;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.Date;
import java.util.concurrent.atomic.AtomicLong;

import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/** A throw-away certificate authority writing PEM files, as cert-manager would. */
final class TestPki {
    private static final AtomicLong SERIAL = new AtomicLong(1);

    private final KeyPair caKeys;
    private final X509Certificate caCert;
    private final Path dir;
    private final String name;

    TestPki(Path dir, String name) throws Exception {
        this.dir = dir;
        this.name = name;
        this.caKeys = keyPair();
        this.caCert = sign(new X500Name("CN=" + name + " CA"), caKeys, caKeys, new X500Name("CN=" + name + " CA"), true,
                BigInteger.valueOf(SERIAL.getAndIncrement()), Instant.now().plus(Duration.ofDays(30)));
        write(dir.resolve(name + "-ca.crt"), "CERTIFICATE", caCert.getEncoded());
    }

    Path caFile() {
        return dir.resolve(name + "-ca.crt");
    }

    /** Issues a certificate for 127.0.0.1/localhost; returns {cert, key} files. */
    Path[] issue(String cn) throws Exception {
        Issued issued = issue(cn, Instant.now().plus(Duration.ofDays(1)), "localhost");
        return new Path[] {issued.cert(), issued.key()};
    }

    /**
     * Issues a certificate for 127.0.0.1 and the DNS names, valid from an hour ago until {@code notAfter}
     * (in the past for an expired one), as {@code <ca>-<cn>.crt} and {@code .key} (PKCS#8).
     */
    Issued issue(String cn, Instant notAfter, String... dnsNames) throws Exception {
        KeyPair keys = keyPair();
        BigInteger serial = BigInteger.valueOf(SERIAL.getAndIncrement());
        X509Certificate cert = sign(new X500Name("CN=" + cn), keys, caKeys, new X500Name("CN=" + name + " CA"), false,
                serial, notAfter, dnsNames);
        Path certFile = dir.resolve(name + "-" + cn + ".crt");
        Path keyFile = dir.resolve(name + "-" + cn + ".key");
        write(certFile, "CERTIFICATE", cert.getEncoded());
        // PKCS#8, the encoding the chart asks cert-manager for
        write(keyFile, "PRIVATE KEY", keys.getPrivate().getEncoded());
        return new Issued(certFile, keyFile, serial);
    }

    /** A certificate's files and its serial number. */
    record Issued(Path cert, Path key, BigInteger serial) {
    }

    private static KeyPair keyPair() throws Exception {
        KeyPairGenerator generator = KeyPairGenerator.getInstance("EC");
        generator.initialize(256);
        return generator.generateKeyPair();
    }

    private static X509Certificate sign(X500Name subject, KeyPair subjectKeys, KeyPair issuerKeys, X500Name issuer,
                                        boolean ca, BigInteger serial, Instant notAfter, String... dnsNames) throws Exception {
        Instant anHourAgo = Instant.now().minus(Duration.ofHours(1));
        Instant dayBeforeEnd = notAfter.minus(Duration.ofDays(1));
        Instant notBefore = dayBeforeEnd.isBefore(anHourAgo) ? dayBeforeEnd : anHourAgo;
        JcaX509v3CertificateBuilder builder = new JcaX509v3CertificateBuilder(issuer, serial, Date.from(notBefore),
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
                builder.build(new JcaContentSignerBuilder("SHA256withECDSA").build(issuerKeys.getPrivate())));
    }

    /** Writes the CA certificates of the PKIs into one bundle file, as during a CA rotation. */
    static Path bundle(Path file, TestPki... pkis) throws IOException {
        StringBuilder pem = new StringBuilder();
        for (TestPki pki : pkis) {
            pem.append(Files.readString(pki.caFile()));
        }
        Files.writeString(file, pem);
        return file;
    }

    private static void write(Path file, String type, byte[] der) throws IOException {
        String body = Base64.getMimeEncoder(64, "\n".getBytes()).encodeToString(der);
        Files.writeString(file, "-----BEGIN " + type + "-----\n" + body + "\n-----END " + type + "-----\n");
    }
}
