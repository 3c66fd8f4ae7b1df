package pillar.testkit;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;

/**
 * A certificate authority made by {@code openssl} (as docs/nfs.md tells an operator), for what reads keys through
 * gnutls, tlshd among them: gnutls refuses the EC keys Java encodes (PKCS#8 without the public half: "ASN1 parser:
 * Element was not found"), which {@link TestPki} writes. EC P-256, valid two days; keys mode 0600 (tlshd reads no
 * other). Runs in the VM guest or on any host with openssl.
 */
public final class OpensslCa {
    private final Path key;
    private final Path cert;

    private OpensslCa(Path key, Path cert) {
        this.key = key;
        this.cert = cert;
    }

    /** A self-signed CA: {@code dir/name.key} and {@code dir/name.crt}. */
    public static OpensslCa create(Path dir, String name) throws IOException {
        Path key = dir.resolve(name + ".key");
        Path cert = dir.resolve(name + ".crt");
        Commands.run("openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-days", "2",
                "-subj", "/CN=" + name, "-keyout", key.toString(), "-out", cert.toString());
        Files.setPosixFilePermissions(key, PosixFilePermissions.fromString("rw-------"));
        return new OpensslCa(key, cert);
    }

    /** The CA's certificate, what a client trusts. */
    public Path cert() {
        return cert;
    }

    /** A server certificate for {@code ip} (subjectAltName) signed by this CA: {@code dir/name.crt} and {@code dir/name.key}. */
    public Issued issueServer(Path dir, String name, String ip) throws IOException {
        Path serverKey = dir.resolve(name + ".key");
        Path csr = dir.resolve(name + ".csr");
        Path serverCert = dir.resolve(name + ".crt");
        Commands.run("openssl", "req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-subj", "/CN=" + name,
                "-keyout", serverKey.toString(), "-out", csr.toString());
        Path extensions = Files.writeString(dir.resolve(name + ".ext"), "subjectAltName=IP:" + ip
                + "\nextendedKeyUsage=serverAuth\nkeyUsage=digitalSignature\n");
        Commands.run("openssl", "x509", "-req", "-in", csr.toString(), "-CA", cert.toString(), "-CAkey", key.toString(),
                "-CAcreateserial", "-days", "2", "-extfile", extensions.toString(), "-out", serverCert.toString());
        Files.setPosixFilePermissions(serverKey, PosixFilePermissions.fromString("rw-------"));
        return new Issued(serverCert, serverKey);
    }

    /** An issued certificate and its key. */
    public record Issued(Path cert, Path key) {
    }
}
