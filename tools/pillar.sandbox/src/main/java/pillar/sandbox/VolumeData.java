package pillar.sandbox;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Random;

/**
 * The data a pod writes to check the volume end to end: 8 MiB of seeded random bytes, in a file on
 * a Filesystem-mode volume or at a fixed offset of a Block-mode device, flushed to the device
 * ({@code fsync}), and its SHA-256 to compare later.
 */
final class VolumeData {
    static final int BYTES = 8 << 20;
    static final String FILE = "sandbox-data.bin";
    /** Past the first MiB of a raw device, where a partition table or a signature would be. */
    static final long BLOCK_OFFSET = 1 << 20;

    private VolumeData() {
    }

    /** Writes the data through {@code target} (the published path) and returns its checksum. */
    static String write(Path target, boolean block, long seed) throws IOException {
        return write(target, block, seed, StandardOpenOption.CREATE_NEW);
    }

    /** Writes other data over what {@link #write} wrote (the same file, or the same device range); returns its checksum. */
    static String rewrite(Path target, boolean block, long seed) throws IOException {
        return write(target, block, seed, StandardOpenOption.TRUNCATE_EXISTING);
    }

    private static String write(Path target, boolean block, long seed, StandardOpenOption fileMode) throws IOException {
        byte[] data = new byte[BYTES];
        new Random(seed).nextBytes(data);
        if (block) {
            try (FileChannel device = FileChannel.open(target, StandardOpenOption.WRITE)) {
                device.write(ByteBuffer.wrap(data), BLOCK_OFFSET);
                device.force(true);
            }
        } else {
            try (FileChannel file = FileChannel.open(target.resolve(FILE), fileMode, StandardOpenOption.WRITE)) {
                file.write(ByteBuffer.wrap(data));
                file.force(true);
            }
        }
        return sha256(data);
    }

    /** The checksum of what reads back through {@code target} now. */
    static String read(Path target, boolean block) throws IOException {
        ByteBuffer buffer = ByteBuffer.allocate(BYTES);
        try (FileChannel channel = FileChannel.open(block ? target : target.resolve(FILE), StandardOpenOption.READ)) {
            long position = block ? BLOCK_OFFSET : 0;
            while (buffer.hasRemaining()) {
                int n = channel.read(buffer, position + buffer.position());
                if (n < 0) {
                    throw new IOException("only " + buffer.position() + " of " + BYTES + " bytes read back from " + target);
                }
            }
        }
        return sha256(buffer.array());
    }

    static String sha256(byte[] data) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(data));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
