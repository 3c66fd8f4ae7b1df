package pillar.agent.backend.lvm;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The physical space of {@link FakeLvm}'s volume group, as on a disk: which byte ranges each LV that
 * takes space holds (linear LVs and thin pools; lowest free range first, as LVM's normal allocation
 * on one PV hands out extents), and the bytes stored there, which outlive the LV that wrote them. An
 * LV made on the extents of a removed one shows that one's bytes, exactly as LVM does (lvcreate's
 * {@code --zero y} clears the first 4 KiB only, see {@link #zeroFirstBlock}).
 *
 * <p>An active LV's bytes live in its device node file; a node shorter than the LV reads zeroes past
 * its end. {@link #load} writes the physical bytes into the node, {@link #store} takes them back.
 */
final class FakeExtents {
    private static final int CHUNK = 1 << 20; // divides every extent size the fake uses
    private static final byte[] ZEROES = new byte[CHUNK];

    private final long size;
    private final Map<String, List<long[]>> segments = new HashMap<>(); // name -> [physical start, length], in LV order
    private final TreeMap<Long, byte[]> disk = new TreeMap<>(); // chunk index -> a chunk that is not all zeroes

    FakeExtents(long size) {
        this.size = size;
    }

    /** Gives {@code name} {@code bytes} more, from the lowest free ranges; the caller checked the free space. */
    void allocate(String name, long bytes) {
        List<long[]> held = segments.computeIfAbsent(name, n -> new ArrayList<>());
        long wanted = bytes;
        long at = 0;
        for (long[] used : usedInOrder()) {
            if (wanted == 0) {
                break;
            }
            long room = Math.min(used[0] - at, wanted);
            if (room > 0) {
                held.add(new long[] { at, room });
                wanted -= room;
            }
            at = Math.max(at, used[0] + used[1]);
        }
        if (wanted > 0) {
            if (at + wanted > size) {
                throw new IllegalStateException("the fake's volume group has no " + wanted + " bytes left for " + name);
            }
            held.add(new long[] { at, wanted });
        }
    }

    /** Frees the ranges of {@code name}; their bytes stay on the disk. */
    void release(String name) {
        segments.remove(name);
    }

    /** The physical ranges of {@code name} as {@code lvs -o seg_pe_ranges} lists them, in bytes: "start-end" each. */
    List<String> ranges(String name) {
        return segments.getOrDefault(name, List.of()).stream().map(s -> s[0] + "-" + (s[0] + s[1] - 1)).toList();
    }

    /** Makes {@code node} hold the bytes on the disk under {@code name}'s ranges. */
    void load(String name, Path node) {
        try (FileChannel file = FileChannel.open(node, StandardOpenOption.CREATE, StandardOpenOption.WRITE)) {
            file.truncate(0);
            long logical = 0;
            for (long[] s : segments.getOrDefault(name, List.of())) {
                for (Map.Entry<Long, byte[]> chunk : disk.subMap(s[0] / CHUNK, (s[0] + s[1]) / CHUNK).entrySet()) {
                    file.write(ByteBuffer.wrap(chunk.getValue()), logical + chunk.getKey() * CHUNK - s[0]);
                }
                logical += s[1];
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Puts the bytes of {@code node} on the disk under {@code name}'s ranges. */
    void store(String name, Path node) {
        try (FileChannel file = FileChannel.open(node, StandardOpenOption.READ)) {
            long logical = 0;
            for (long[] s : segments.getOrDefault(name, List.of())) {
                for (long offset = 0; offset < s[1]; offset += CHUNK) {
                    if (logical + offset >= file.size()) {
                        disk.remove((s[0] + offset) / CHUNK); // past the node's end: zeroes
                        continue;
                    }
                    ByteBuffer chunk = ByteBuffer.allocate(CHUNK);
                    while (chunk.hasRemaining() && file.read(chunk, logical + offset + chunk.position()) > 0) {
                        // reads up to the chunk's end or the node's
                    }
                    long index = (s[0] + offset) / CHUNK;
                    if (Arrays.equals(chunk.array(), ZEROES)) {
                        disk.remove(index);
                    } else {
                        disk.put(index, chunk.array());
                    }
                }
                logical += s[1];
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** As {@code lvcreate --zero y}: the first 4 KiB of the node become zeroes (a wiped signature area). */
    static void zeroFirstBlock(Path node) {
        try (FileChannel file = FileChannel.open(node, StandardOpenOption.WRITE)) {
            if (file.size() > 0) {
                file.write(ByteBuffer.allocate((int) Math.min(4096, file.size())), 0);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private List<long[]> usedInOrder() {
        List<long[]> all = new ArrayList<>();
        segments.values().forEach(all::addAll);
        all.sort((a, b) -> Long.compare(a[0], b[0]));
        return all;
    }
}
