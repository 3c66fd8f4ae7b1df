package pillar.agent.backend;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.locks.ReadWriteLock;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.Supplier;
import java.util.regex.Pattern;

import pillar.runtime.exec.Command;
import pillar.runtime.exec.CommandFailedException;
import pillar.runtime.exec.ProcessRunner;

/**
 * Finds the block device of a zvol. With udev, {@code <dev>/zvol/<dataset>} links to it. Without udev
 * (the test VM, a minimal host) there is no link and the {@code zdN} number is not stable (freed numbers
 * are reused), so each {@code <sys>/block/zd*} is asked for its dataset with {@code zvol_id /dev/zdN},
 * the program the udev rule runs, which prints the dataset name. Candidates whose size already matches
 * the zvol's are asked first, so one call usually suffices.
 *
 * <p>{@code zvol_id} opens the device it asks, and ZFS refuses to destroy a zvol that is open ("dataset
 * is busy"): a probe of any zvol (a ListVolumes, a metrics scrape, another volume's create or export
 * looking through every {@code zdN}) could make the agent's own destroy of that zvol fail. So probes
 * and destroys exclude each other here: each probe holds {@link #probing} shared for its one call,
 * a destroy ({@link #unprobed}) holds it exclusively.
 */
final class ZvolDevices {
    private static final Pattern ZD = Pattern.compile("zd[0-9]+");
    private static final long SECTOR = 512;

    private final ProcessRunner runner;
    private final Path devRoot;
    private final Path sysRoot;
    private final Path zvolId;
    private final Duration commandTimeout;
    /** Shared by each {@code zvol_id} call, exclusive for a destroy: the agent never holds open a zvol it destroys. */
    private final ReadWriteLock probing = new ReentrantReadWriteLock();

    /**
     * @param devRoot the device tree ({@code /dev})
     * @param sysRoot sysfs ({@code /sys})
     * @param zvolId  the dataset-of-a-zvol program ({@code /lib/udev/zvol_id})
     */
    ZvolDevices(ProcessRunner runner, Path devRoot, Path sysRoot, Path zvolId, Duration commandTimeout) {
        this.runner = runner;
        this.devRoot = devRoot;
        this.sysRoot = sysRoot;
        this.zvolId = zvolId;
        this.commandTimeout = commandTimeout;
    }

    /** The device of {@code dataset} now, if there is one; {@code volsize} only orders the search. */
    Optional<Path> find(String dataset, long volsize) {
        Path link = udevLink(dataset);
        if (Files.exists(link)) {
            return Optional.of(link);
        }
        List<Path> candidates = new ArrayList<>(zdDevices());
        candidates.sort(Comparator.comparing((Path zd) -> sectors(zd) != volsize / SECTOR).thenComparing(Path::toString));
        for (Path zd : candidates) {
            Path node = devRoot.resolve(zd.getFileName().toString());
            if (Files.exists(node) && datasetOf(node).filter(dataset::equals).isPresent()) {
                return Optional.of(node);
            }
        }
        return Optional.empty();
    }

    /** Every zvol device now present, by dataset (one zvol_id call per device without udev links). */
    Map<String, Path> all(List<String> datasets) {
        Map<String, Path> found = new HashMap<>();
        List<String> missing = new ArrayList<>();
        for (String dataset : datasets) {
            Path link = udevLink(dataset);
            if (Files.exists(link)) {
                found.put(dataset, link);
            } else {
                missing.add(dataset);
            }
        }
        if (!missing.isEmpty()) {
            for (Path zd : zdDevices()) {
                Path node = devRoot.resolve(zd.getFileName().toString());
                if (Files.exists(node)) {
                    datasetOf(node).filter(missing::contains).ifPresent(dataset -> found.put(dataset, node));
                }
            }
        }
        return found;
    }

    /** Where udev links the zvol; also what {@link #all} falls back to in messages. */
    Path udevLink(String dataset) {
        return devRoot.resolve("zvol").resolve(dataset);
    }

    private List<Path> zdDevices() {
        Path block = sysRoot.resolve("block");
        List<Path> devices = new ArrayList<>();
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(block)) {
            for (Path entry : entries) {
                if (ZD.matcher(entry.getFileName().toString()).matches()) {
                    devices.add(entry);
                }
            }
        } catch (IOException e) {
            return List.of(); // no /sys/block: nothing to find yet
        }
        return devices;
    }

    private static long sectors(Path sysEntry) {
        try {
            return Long.parseLong(Files.readString(sysEntry.resolve("size")).strip());
        } catch (IOException | NumberFormatException e) {
            return -1;
        }
    }

    /**
     * Runs {@code removal} (a {@code zfs destroy}) while no {@code zvol_id} of this agent has a zvol open;
     * probes that start meanwhile wait for it.
     */
    <T> T unprobed(Supplier<T> removal) {
        probing.writeLock().lock();
        try {
            return removal.get();
        } finally {
            probing.writeLock().unlock();
        }
    }

    private Optional<String> datasetOf(Path node) {
        probing.readLock().lock();
        try {
            String out = runner.run(Command.of(commandTimeout, zvolId.toString(), node.toString())).stdout().strip();
            return out.isEmpty() || out.contains("\n") ? Optional.empty() : Optional.of(out);
        } catch (CommandFailedException e) {
            return Optional.empty(); // not a zvol any more (destroyed meanwhile), or not readable: not this one
        } finally {
            probing.readLock().unlock();
        }
    }
}
