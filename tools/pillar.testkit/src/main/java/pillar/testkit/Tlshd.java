package pillar.testkit;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * The kernel's TLS handshake daemon ({@code /usr/sbin/tlshd}, ktls-utils; the VM's 6.12 guest has it) running with
 * a configuration of the test's own, for both ends of a loopback connection. It logs to the console (syslog), not
 * to a file. {@link #close} stops it.
 */
public final class Tlshd implements AutoCloseable {
    private final Process process;

    private Tlshd(Process process) {
        this.process = process;
    }

    /** tlshd with {@code config} (tlshd.conf text) written into {@code dir}; fails unless it runs half a second later. */
    public static Tlshd start(Path dir, String config) throws IOException, InterruptedException {
        Path file = dir.resolve("tlshd.conf");
        Files.writeString(file, config);
        Process process = new ProcessBuilder("/usr/sbin/tlshd", "-c", file.toString(), "-s").redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(dir.resolve("tlshd.log").toFile())).start();
        Thread.sleep(500);
        if (!process.isAlive()) {
            throw new IllegalStateException("tlshd ended at once (exit " + process.exitValue() + "): "
                    + Files.readString(dir.resolve("tlshd.log")));
        }
        return new Tlshd(process);
    }

    /** With keys in keyrings only (NVMe/TCP's pre-shared keys): no certificate. */
    public static Tlshd withKeyringsOnly(Path dir) throws IOException, InterruptedException {
        return start(dir, "[debug]\nloglevel=1\n[authenticate]\n");
    }

    /**
     * With x.509 for both ends: the server presents {@code serverCert} with {@code serverKey}, the client trusts
     * {@code clientTrust} (a CA file).
     */
    public static Tlshd withCertificates(Path dir, Path serverCert, Path serverKey, Path clientTrust)
            throws IOException, InterruptedException {
        return start(dir, "[debug]\nloglevel=1\n[authenticate]\n[authenticate.client]\nx509.truststore=" + clientTrust
                + "\n[authenticate.server]\nx509.certificate=" + serverCert + "\nx509.private_key=" + serverKey + "\n");
    }

    @Override
    public void close() throws InterruptedException {
        process.destroy();
        if (!process.waitFor(10, TimeUnit.SECONDS)) {
            process.destroyForcibly();
        }
    }
}
