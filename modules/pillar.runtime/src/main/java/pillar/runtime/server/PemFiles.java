package pillar.runtime.server;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.Signature;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.Base64;
import java.util.Collection;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import javax.net.ssl.KeyManager;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;

/**
 * Reads PEM files into the JDK's key and trust managers, so that a bad file is found when it is
 * read (at start-up or at a reload), with a message naming it, rather than at the first connection.
 * A key that does not belong to its certificate is refused here too.
 */
public final class PemFiles {
    private static final Pattern PKCS8 = Pattern.compile(
            "-----BEGIN PRIVATE KEY-----([A-Za-z0-9+/=\\s]+)-----END PRIVATE KEY-----");
    private static final char[] NO_PASSWORD = new char[0];

    private PemFiles() {
    }

    /**
     * A workload's identity: its certificate chain and PKCS#8 private key, which must be the key of
     * the chain's first certificate.
     */
    public static KeyManager[] keyManagers(Path certFile, Path keyFile) {
        List<Certificate> chain = certificates(certFile);
        PrivateKey key = privateKey(keyFile);
        checkPair(key, chain.getFirst(), keyFile, certFile);
        try {
            KeyStore store = KeyStore.getInstance("PKCS12");
            store.load(null, null);
            store.setKeyEntry("identity", key, NO_PASSWORD, chain.toArray(Certificate[]::new));
            KeyManagerFactory factory = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
            factory.init(store, NO_PASSWORD);
            return factory.getKeyManagers();
        } catch (GeneralSecurityException | IOException e) {
            throw new IllegalArgumentException(keyFile + " does not match the certificate " + certFile + ": " + e.getMessage(), e);
        }
    }

    /** Trusts exactly the certificates of the CA file (several during a CA rotation). */
    public static TrustManager[] trustManagers(Path caFile) {
        List<Certificate> cas = certificates(caFile);
        try {
            KeyStore store = KeyStore.getInstance("PKCS12");
            store.load(null, null);
            for (int i = 0; i < cas.size(); i++) {
                store.setCertificateEntry("ca-" + i, cas.get(i));
            }
            TrustManagerFactory factory = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            factory.init(store);
            return factory.getTrustManagers();
        } catch (GeneralSecurityException | IOException e) {
            throw new IllegalArgumentException(caFile + ": " + e.getMessage(), e);
        }
    }

    /** Signs a challenge with the key and verifies it with the certificate's public key. */
    private static void checkPair(PrivateKey key, Certificate cert, Path keyFile, Path certFile) {
        String algorithm = switch (key.getAlgorithm()) {
            case "EC" -> "SHA256withECDSA";
            case "RSA" -> "SHA256withRSA";
            default -> key.getAlgorithm();
        };
        byte[] challenge = "pillar-csi key check".getBytes(StandardCharsets.US_ASCII);
        try {
            Signature signer = Signature.getInstance(algorithm);
            signer.initSign(key);
            signer.update(challenge);
            byte[] signature = signer.sign();
            Signature verifier = Signature.getInstance(algorithm);
            verifier.initVerify(cert.getPublicKey());
            verifier.update(challenge);
            if (verifier.verify(signature)) {
                return;
            }
        } catch (GeneralSecurityException e) {
            // a key of another algorithm than the certificate's: not its key either
        }
        throw new IllegalArgumentException(keyFile + " is not the private key of the certificate " + certFile);
    }

    static List<Certificate> certificates(Path file) {
        try (InputStream in = Files.newInputStream(file)) {
            Collection<? extends Certificate> certificates = CertificateFactory.getInstance("X.509").generateCertificates(in);
            if (certificates.isEmpty()) {
                throw new IllegalArgumentException(file + " holds no PEM certificate");
            }
            return List.copyOf(certificates);
        } catch (GeneralSecurityException | IOException e) {
            throw new IllegalArgumentException(file + " is not a PEM certificate file: " + e.getMessage(), e);
        }
    }

    private static PrivateKey privateKey(Path file) {
        String pem;
        try {
            pem = Files.readString(file, StandardCharsets.US_ASCII);
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot read " + file + ": " + e.getMessage(), e);
        }
        Matcher m = PKCS8.matcher(pem);
        if (!m.find()) {
            throw new IllegalArgumentException(file + " holds no PKCS#8 key (-----BEGIN PRIVATE KEY-----); convert one with"
                    + " openssl pkcs8 -topk8 -nocrypt, or ask cert-manager for privateKey.encoding PKCS8");
        }
        PKCS8EncodedKeySpec spec = new PKCS8EncodedKeySpec(Base64.getMimeDecoder().decode(m.group(1)));
        for (String algorithm : List.of("EC", "RSA", "Ed25519")) {
            try {
                return KeyFactory.getInstance(algorithm).generatePrivate(spec);
            } catch (GeneralSecurityException e) {
                // try the next algorithm
            }
        }
        throw new IllegalArgumentException(file + " holds a PKCS#8 key that is neither EC, RSA nor Ed25519");
    }
}
