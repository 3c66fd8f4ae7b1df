package pillar.agent.backend.zfs;

import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.Random;
import pillar.agent.backend.BackendVolume;

/** What the kernel tests write to a filesystem volume's mount and read back: a file of a pattern and its SHA-256. */
final class FileData {
    /** The file each test writes in a volume's mount. */
    static final String NAME = "data";

    private FileData() {
    }

    /** Writes {@code bytes} of a pattern from {@code seed} to {@link #NAME} in the volume's mount (replacing it), flushed; its SHA-256. */
    static String write(BackendVolume volume, long bytes, long seed) throws Exception {
        byte[] data = new byte[Math.toIntExact(bytes)];
        new Random(seed).nextBytes(data);
        try (FileChannel channel = FileChannel.open(volume.mountPath().resolve(NAME), StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.TRUNCATE_EXISTING)) {
            ByteBuffer buffer = ByteBuffer.wrap(data);
            while (buffer.hasRemaining()) {
                channel.write(buffer);
            }
            channel.force(true);
        }
        return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(data));
    }

    /** The SHA-256 of {@link #NAME} in the volume's mount; a missing file fails. */
    static String hash(BackendVolume volume) throws Exception {
        return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(volume.mountPath().resolve(NAME))));
    }
}
