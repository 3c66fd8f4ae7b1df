package pillar.agent.configfs;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.HexFormat;
import java.util.Random;

import pillar.runtime.exec.Command;
import pillar.runtime.exec.CommandFailedException;
import pillar.runtime.exec.ProcessRunner;
import pillar.runtime.exec.SystemProcessRunner;

/**
 * The kernel tests' writer: one 4 KiB block at a time with {@code dd oflag=direct,dsync conv=fsync}
 * (O_DIRECT, so the write reaches the device or fails, never a page cache), each block's content
 * random with its sequence number first, and its SHA-256 kept by the caller to check a read-back.
 */
public final class BlockWrites {
    public static final int BLOCK = 4096;
    private static final ProcessRunner RUNNER = new SystemProcessRunner();

    private final Path scratch;

    /** @param scratch a directory for the blocks' source files (the guest's tmpfs) */
    public BlockWrites(Path scratch) {
        this.scratch = scratch;
    }

    /** A block whose first eight bytes are {@code seq}, the rest random. */
    public static byte[] block(long seq, Random random) {
        byte[] data = new byte[BLOCK];
        random.nextBytes(data);
        for (int i = 0; i < 8; i++) {
            data[i] = (byte) (seq >>> (56 - 8 * i));
        }
        return data;
    }

    /**
     * Writes {@code data} at block {@code index} of {@code target} (a block device, or a file, which
     * is not truncated) and waits until it is on the device. Returns whether the write succeeded. The
     * target must exist: a block device that went away fails rather than become a new file in /dev.
     */
    public boolean write(Path target, long index, byte[] data, Duration deadline) throws IOException {
        Path source = scratch.resolve("block-" + Thread.currentThread().threadId());
        Files.write(source, data);
        try {
            RUNNER.run(Command.of(deadline, "dd", "if=" + source, "of=" + target, "bs=" + BLOCK, "count=1",
                    "seek=" + index, "oflag=direct,dsync", "conv=notrunc,fsync,nocreat", "status=none"));
            return true;
        } catch (CommandFailedException e) {
            return false;
        }
    }

    /** Block {@code index} of {@code target} as it reads now. */
    public static byte[] read(Path target, long index) throws IOException {
        byte[] data = new byte[BLOCK];
        try (RandomAccessFile file = new RandomAccessFile(target.toFile(), "r")) {
            file.seek(index * BLOCK);
            file.readFully(data);
        }
        return data;
    }

    static String sha256(byte[] data) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(data));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
