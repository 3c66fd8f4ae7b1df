package pillar.agent.backend;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.Random;

/** What the kernel tests write to a volume's device and read back: patterns and their SHA-256. */
public final class DeviceData {
    private DeviceData() {
    }

    /** Fills the volume with a pattern from {@code seed} through its device, flushed; returns its SHA-256. */
    public static String write(BackendVolume volume, long seed) throws Exception {
        byte[] data = new byte[(int) volume.size().bytes()];
        new Random(seed).nextBytes(data);
        try (FileChannel channel = FileChannel.open(volume.device(), StandardOpenOption.WRITE)) {
            ByteBuffer buffer = ByteBuffer.wrap(data);
            while (buffer.hasRemaining()) {
                channel.write(buffer, buffer.position());
            }
            channel.force(true);
        }
        return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(data));
    }

    /** The SHA-256 of the device's first {@code bytes}. */
    public static String hash(BackendVolume volume, long bytes) throws Exception {
        MessageDigest digest = MessageDigest.getInstance("SHA-256");
        try (FileChannel channel = FileChannel.open(volume.device(), StandardOpenOption.READ)) {
            ByteBuffer buffer = ByteBuffer.allocate(1 << 20);
            long left = bytes;
            long at = 0;
            while (left > 0) {
                buffer.clear().limit((int) Math.min(buffer.capacity(), left));
                int n = channel.read(buffer, at);
                assertThat(n).as("read of " + volume.device() + " at " + at).isPositive();
                digest.update(buffer.flip());
                at += n;
                left -= n;
            }
        }
        return HexFormat.of().formatHex(digest.digest());
    }
}
