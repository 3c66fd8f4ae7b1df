package pillar.sandbox;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyFactory;
import java.security.PrivateKey;
import java.security.Signature;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.Base64;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The bed's certificates are what a default install of the chart gives each side. */
class SandboxPkiTest {
    private static final int DNS = 2;
    private static final int IP = 7;

    @TempDir
    Path dir;

    @Test
    void oneCaSignsAServerCertificateForTheAgentAndAClientCertificateForTheController() throws Exception {
        SandboxPki pki = SandboxPki.create(dir);
        X509Certificate ca = certificate(pki.agentCa());
        assertThat(Files.readString(pki.controllerCa())).isEqualTo(Files.readString(pki.agentCa()));
        assertThat(ca.getBasicConstraints()).isGreaterThanOrEqualTo(0);

        X509Certificate agent = certificate(pki.agentCert());
        agent.verify(ca.getPublicKey());
        assertThat(agent.getBasicConstraints()).isEqualTo(-1);
        assertThat(agent.getSubjectAlternativeNames()).containsExactly(List.of(DNS, "storage-1.pillar-agent"), List.of(IP, "127.0.0.1"));
        assertThat(agent.getExtendedKeyUsage()).containsExactly("1.3.6.1.5.5.7.3.1");
        assertKeyMatches(pki.agentKey(), agent);

        X509Certificate controller = certificate(pki.controllerCert());
        controller.verify(ca.getPublicKey());
        assertThat(controller.getSubjectAlternativeNames()).containsExactly(List.of(DNS, "pillar-controller"));
        assertThat(controller.getExtendedKeyUsage()).containsExactly("1.3.6.1.5.5.7.3.2");
        assertKeyMatches(pki.controllerKey(), controller);
    }

    /** The key is PKCS#8 (what both workloads read) and belongs to the certificate. */
    private static void assertKeyMatches(Path keyFile, X509Certificate cert) throws Exception {
        String pem = Files.readString(keyFile, StandardCharsets.US_ASCII);
        assertThat(pem).startsWith("-----BEGIN PRIVATE KEY-----\n").endsWith("-----END PRIVATE KEY-----\n");
        PrivateKey key = KeyFactory.getInstance("EC").generatePrivate(new PKCS8EncodedKeySpec(Base64.getMimeDecoder().decode(
                pem.replace("-----BEGIN PRIVATE KEY-----", "").replace("-----END PRIVATE KEY-----", ""))));
        byte[] data = "pillar".getBytes(StandardCharsets.US_ASCII);
        Signature signer = Signature.getInstance("SHA256withECDSA");
        signer.initSign(key);
        signer.update(data);
        byte[] signature = signer.sign();
        Signature verifier = Signature.getInstance("SHA256withECDSA");
        verifier.initVerify(cert.getPublicKey());
        verifier.update(data);
        assertThat(verifier.verify(signature)).isTrue();
    }

    private static X509Certificate certificate(Path file) throws Exception {
        try (InputStream in = Files.newInputStream(file)) {
            return (X509Certificate) CertificateFactory.getInstance("X.509").generateCertificate(in);
        }
    }
}
