package pillar.sandbox;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.Date;

import io.grpc.ChannelCredentials;
import io.grpc.Grpc;
import io.grpc.ManagedChannel;
import io.grpc.TlsChannelCredentials;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.CertIOException;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;
import pillar.runtime.durable.AtomicFiles;

/**
 * A throw-away CA for one bed and the two certificates a default install of the chart makes: the
 * agent's server certificate (DNS {@value #AGENT_SERVER_NAME}, IP 127.0.0.1) and the controller's
 * client certificate (DNS {@value #CONTROLLER_NAME}, the one name the agent admits). Each side's
 * directory holds what its Secret would: tls.crt, tls.key (PKCS#8) and ca.crt. ECDSA P-256, valid a day.
 *
 * @param agent      the agent's directory
 * @param controller the controller's directory
 */
record SandboxPki(Path agent, Path controller) {
    /**
     * The name the chart gives the agent of storage node storage-1 ({@code <node>.<tls.agentServerName>}):
     * what the controller verifies (PillarAgent spec.tls.serverName).
     */
    static final String AGENT_SERVER_NAME = "storage-1.pillar-agent";
    /** The chart's tls.controllerName default: the agent's tls.client-names. */
    static final String CONTROLLER_NAME = "pillar-controller";
    /** The Secret a PillarAgent names in the chart (the controller reads its own files; the name is for the record). */
    static final String AGENT_SECRET = "pillar-agent-tls";

    /** Makes the CA and both certificates below {@code dir} (agent/ and controller/), replacing any there. */
    static SandboxPki create(Path dir) {
        try {
            KeyPair caKeys = keyPair();
            X500Name ca = new X500Name("CN=pillar-sandbox-ca");
            Instant now = Instant.now();
            X509Certificate caCert = sign(builder(ca, ca, caKeys, now)
                    .addExtension(Extension.basicConstraints, true, new BasicConstraints(true))
                    .addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.keyCertSign | KeyUsage.cRLSign)), caKeys);
            SandboxPki pki = new SandboxPki(dir.resolve("agent"), dir.resolve("controller"));
            issue(pki.agent, AGENT_SERVER_NAME, KeyPurposeId.id_kp_serverAuth, true, ca, caKeys, caCert, now);
            issue(pki.controller, CONTROLLER_NAME, KeyPurposeId.id_kp_clientAuth, false, ca, caKeys, caCert, now);
            return pki;
        } catch (GeneralSecurityException | CertIOException | OperatorCreationException e) {
            throw new IllegalStateException("cannot make the sandbox's certificates: " + e.getMessage(), e);
        }
    }

    Path agentCert() {
        return agent.resolve("tls.crt");
    }

    Path agentKey() {
        return agent.resolve("tls.key");
    }

    Path agentCa() {
        return agent.resolve("ca.crt");
    }

    Path controllerCert() {
        return controller.resolve("tls.crt");
    }

    Path controllerKey() {
        return controller.resolve("tls.key");
    }

    Path controllerCa() {
        return controller.resolve("ca.crt");
    }

    /**
     * A channel to the agent at {@code host:port} as the controller dials it: mutual TLS with the controller's
     * certificate, the agent's verified against its CA and {@value #AGENT_SERVER_NAME}.
     */
    ManagedChannel agentChannel(String host, int port) {
        ChannelCredentials credentials;
        try {
            credentials = TlsChannelCredentials.newBuilder().keyManager(controllerCert().toFile(), controllerKey().toFile())
                    .trustManager(controllerCa().toFile()).build();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the sandbox's certificates in " + controller, e);
        }
        return Grpc.newChannelBuilderForAddress(host, port, credentials).overrideAuthority(AGENT_SERVER_NAME).build();
    }

    private static void issue(Path dir, String dnsName, KeyPurposeId usage, boolean loopbackIp, X500Name ca, KeyPair caKeys,
                              X509Certificate caCert, Instant now)
            throws GeneralSecurityException, CertIOException, OperatorCreationException {
        KeyPair keys = keyPair();
        GeneralName dns = new GeneralName(GeneralName.dNSName, dnsName);
        GeneralNames names = loopbackIp ? new GeneralNames(new GeneralName[] {dns, new GeneralName(GeneralName.iPAddress, "127.0.0.1")})
                : new GeneralNames(dns);
        X509Certificate cert = sign(builder(ca, new X500Name("CN=" + dnsName), keys, now)
                .addExtension(Extension.basicConstraints, true, new BasicConstraints(false))
                .addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.digitalSignature))
                .addExtension(Extension.extendedKeyUsage, false, new ExtendedKeyUsage(usage))
                .addExtension(Extension.subjectAlternativeName, false, names), caKeys);
        write(dir.resolve("tls.crt"), "CERTIFICATE", cert.getEncoded());
        write(dir.resolve("tls.key"), "PRIVATE KEY", keys.getPrivate().getEncoded());
        write(dir.resolve("ca.crt"), "CERTIFICATE", caCert.getEncoded());
    }

    private static JcaX509v3CertificateBuilder builder(X500Name issuer, X500Name subject, KeyPair keys, Instant now) {
        return new JcaX509v3CertificateBuilder(issuer, new BigInteger(64, new java.security.SecureRandom()).add(BigInteger.ONE),
                Date.from(now.minus(Duration.ofHours(1))), Date.from(now.plus(Duration.ofDays(1))), subject, keys.getPublic());
    }

    private static X509Certificate sign(X509v3CertificateBuilder builder, KeyPair issuerKeys)
            throws GeneralSecurityException, OperatorCreationException {
        return new JcaX509CertificateConverter().getCertificate(
                builder.build(new JcaContentSignerBuilder("SHA256withECDSA").build(issuerKeys.getPrivate())));
    }

    private static KeyPair keyPair() throws GeneralSecurityException {
        KeyPairGenerator generator = KeyPairGenerator.getInstance("EC");
        generator.initialize(256);
        return generator.generateKeyPair();
    }

    private static void write(Path file, String type, byte[] der) {
        String body = Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII)).encodeToString(der);
        AtomicFiles.write(file, ("-----BEGIN " + type + "-----\n" + body + "\n-----END " + type + "-----\n")
                .getBytes(StandardCharsets.US_ASCII));
    }
}
