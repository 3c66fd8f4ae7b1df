package pillar.testkit;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;

/**
 * What crossed the wire of one TCP port on the loopback interface while data was written: {@code tcpdump} (run
 * as root, {@code -Z root}: the VM guest has no tcpdump user) writes every packet whole into a file, and the file is
 * searched for {@link #MARKER}, the text the writer repeats. The proof that a data path is encrypted from outside:
 * a capture of enough bytes holding no marker, beside a plaintext capture of the same write holding many.
 */
public final class WireCapture {
    /** The text a test writes over and over; it never occurs by chance. */
    public static final byte[] MARKER = "PILLAR-CSI-PLAINTEXT-MARKER-0123456789".getBytes(StandardCharsets.US_ASCII);

    private final Process process;
    private final Path file;

    private WireCapture(Process process, Path file) {
        this.process = process;
        this.file = file;
    }

    /** Starts capturing TCP port {@code port} on {@code lo} into {@code file}; returns once tcpdump listens (20 s at most). */
    public static WireCapture start(Path file, int port) throws IOException, InterruptedException {
        Path log = file.resolveSibling(file.getFileName() + ".log");
        Process process = new ProcessBuilder("tcpdump", "-Z", "root", "-U", "-s", "0", "-i", "lo", "-w", file.toString(),
                "tcp", "port", Integer.toString(port)).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (!Files.readString(log).contains("listening on") && System.nanoTime() < deadline && process.isAlive()) {
            Thread.sleep(100);
        }
        if (!Files.readString(log).contains("listening on")) {
            process.destroyForcibly();
            throw new IllegalStateException("tcpdump does not listen: " + Files.readString(log));
        }
        return new WireCapture(process, file);
    }

    /** Ends the capture (20 s at most); the file is then complete. */
    public WireCapture stop() throws InterruptedException {
        process.destroy();
        if (!process.waitFor(20, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new IllegalStateException("tcpdump did not end");
        }
        return this;
    }

    /** The size of the capture file: every byte that crossed, with the packets' headers. */
    public long bytes() throws IOException {
        return Files.size(file);
    }

    /** How many times {@link #MARKER} occurs in the capture. */
    public long markers() throws IOException {
        return count(Files.readAllBytes(file), MARKER);
    }

    /** {@code bytes} bytes of {@link #MARKER} repeated (the last one cut short). */
    public static byte[] markerData(int bytes) {
        byte[] data = new byte[bytes];
        for (int i = 0; i < bytes; i++) {
            data[i] = MARKER[i % MARKER.length];
        }
        return data;
    }

    /** How many times {@code needle} occurs in {@code haystack}, overlapping ones included. */
    public static long count(byte[] haystack, byte[] needle) {
        long found = 0;
        for (int i = 0; i + needle.length <= haystack.length; i++) {
            if (haystack[i] == needle[0] && Arrays.equals(haystack, i, i + needle.length, needle, 0, needle.length)) {
                found++;
            }
        }
        return found;
    }
}
