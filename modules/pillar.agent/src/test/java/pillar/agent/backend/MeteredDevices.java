package pillar.agent.backend;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.ReadableByteChannel;
import java.nio.channels.WritableByteChannel;
import java.nio.file.Path;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * {@link BlockCopy#BUFFERED} with a meter on the source side (a device opened for reading only): the
 * bytes read from sources (past the end of a fake's node file, the bytes asked for, which read as zeroes) and the sources opened; optionally a gate (each positional read of a source
 * takes a permit, so a test lets a copy go chunk by chunk) and a failure (a read of a source at or past an
 * offset throws, as a device gone bad or a crash would cut the copy there).
 */
public final class MeteredDevices implements BlockCopy.Devices {
    public final AtomicLong sourceBytes = new AtomicLong();
    public final AtomicInteger sourcesOpened = new AtomicInteger();
    private final Semaphore gate;
    private volatile long failAt = Long.MAX_VALUE;

    private MeteredDevices(Semaphore gate) {
        this.gate = gate;
    }

    /** Reads pass freely. */
    public static MeteredDevices open() {
        return new MeteredDevices(null);
    }

    /** Each source read waits for a permit ({@link #let}); none is given yet. */
    public static MeteredDevices gated() {
        return new MeteredDevices(new Semaphore(0));
    }

    /** Lets {@code chunks} more source reads through. */
    public void let(int chunks) {
        gate.release(chunks);
    }

    /** Lets every source read through from now on. */
    public void openGate() {
        gate.release(Integer.MAX_VALUE / 2);
    }

    /** Source reads at or past {@code offset} fail with an IOException. */
    public MeteredDevices failingAt(long offset) {
        failAt = offset;
        return this;
    }

    @Override
    public FileChannel open(Path device, boolean write) throws IOException {
        FileChannel channel = BlockCopy.BUFFERED.open(device, write);
        if (write) {
            return channel;
        }
        sourcesOpened.incrementAndGet();
        return new Metered(channel);
    }

    private final class Metered extends FileChannel {
        private final FileChannel inner;

        public Metered(FileChannel inner) {
            this.inner = inner;
        }

        @Override
        public int read(ByteBuffer dst, long position) throws IOException {
            if (gate != null) {
                try {
                    gate.acquire();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IOException("interrupted at the gate", e);
                }
            }
            if (position >= failAt) {
                throw new IOException("Input/output error (a failure made by the test at " + failAt + ")");
            }
            int asked = dst.remaining();
            int n = inner.read(dst, position);
            sourceBytes.addAndGet(n < 0 ? asked : n); // past the end of a node file the copy takes zeroes: read too
            return n;
        }

        @Override
        public int read(ByteBuffer dst) throws IOException {
            throw new UnsupportedOperationException("the copy reads by position");
        }

        @Override
        public long read(ByteBuffer[] dsts, int offset, int length) throws IOException {
            throw new UnsupportedOperationException("the copy reads by position");
        }

        @Override
        public int write(ByteBuffer src) throws IOException {
            return inner.write(src);
        }

        @Override
        public long write(ByteBuffer[] srcs, int offset, int length) throws IOException {
            return inner.write(srcs, offset, length);
        }

        @Override
        public int write(ByteBuffer src, long position) throws IOException {
            return inner.write(src, position);
        }

        @Override
        public long position() throws IOException {
            return inner.position();
        }

        @Override
        public FileChannel position(long newPosition) throws IOException {
            inner.position(newPosition);
            return this;
        }

        @Override
        public long size() throws IOException {
            return inner.size();
        }

        @Override
        public FileChannel truncate(long size) throws IOException {
            inner.truncate(size);
            return this;
        }

        @Override
        public void force(boolean metaData) throws IOException {
            inner.force(metaData);
        }

        @Override
        public long transferTo(long position, long count, WritableByteChannel target) throws IOException {
            return inner.transferTo(position, count, target);
        }

        @Override
        public long transferFrom(ReadableByteChannel src, long position, long count) throws IOException {
            return inner.transferFrom(src, position, count);
        }

        @Override
        public MappedByteBuffer map(MapMode mode, long position, long size) throws IOException {
            return inner.map(mode, position, size);
        }

        @Override
        public FileLock lock(long position, long size, boolean shared) throws IOException {
            return inner.lock(position, size, shared);
        }

        @Override
        public FileLock tryLock(long position, long size, boolean shared) throws IOException {
            return inner.tryLock(position, size, shared);
        }

        @Override
        protected void implCloseChannel() throws IOException {
            inner.close();
        }
    }
}
