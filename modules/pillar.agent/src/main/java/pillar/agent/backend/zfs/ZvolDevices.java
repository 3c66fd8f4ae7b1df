package pillar.agent.backend.zfs;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReadWriteLock;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import java.util.regex.Pattern;

import pillar.runtime.exec.Command;
import pillar.runtime.exec.CommandFailedException;
import pillar.runtime.exec.ProcessRunner;

/**
 * Finds the block device of a zvol: the udev link {@code <dev>/zvol/<dataset>}, or without udev the
 * {@code <sys>/block/zd*} device that {@code zvol_id /dev/zdN} (the program the udev rule runs) names it.
 * Each answer is remembered per device instance ({@code zdN} with its {@code diskseq}), so each device is asked
 * once in its life; a hit is confirmed by one more {@code zvol_id}, the agent's own renames are told
 * ({@link #renamed}), and devices remembered as other datasets are asked again at most every
 * {@value #RECHECK_SECONDS} s on a miss. A probe opens the device, which makes ZFS refuse a destroy as busy, so
 * probes and destroys ({@link #unprobed}) exclude each other.
 */
final class ZvolDevices {
    private static final Pattern ZD = Pattern.compile("zd[0-9]+");
    private static final long SECTOR = 512;
    static final long RECHECK_SECONDS = 10;

    /** What {@code zvol_id} said of the device instance {@code zdN} at {@code diskseq}. */
    private record Seen(String diskseq, String dataset) {
    }

    private final ProcessRunner runner;
    private final Path devRoot;
    private final Path sysRoot;
    private final Path zvolId;
    private final Duration commandTimeout;
    private final LongSupplier clock;
    private final Map<String, Seen> seen = new ConcurrentHashMap<>();
    private final AtomicLong lastRecheck;
    /** Shared by each {@code zvol_id} call, exclusive for a destroy: the agent never holds open a zvol it destroys. */
    private final ReadWriteLock probing = new ReentrantReadWriteLock();

    /**
     * @param devRoot the device tree ({@code /dev})
     * @param sysRoot sysfs ({@code /sys})
     * @param zvolId  the dataset-of-a-zvol program ({@code /lib/udev/zvol_id})
     * @param clock   nanoseconds, for the recheck interval
     */
    ZvolDevices(ProcessRunner runner, Path devRoot, Path sysRoot, Path zvolId, Duration commandTimeout, LongSupplier clock) {
        this.runner = runner;
        this.devRoot = devRoot;
        this.sysRoot = sysRoot;
        this.zvolId = zvolId;
        this.commandTimeout = commandTimeout;
        this.clock = clock;
        this.lastRecheck = new AtomicLong(clock.getAsLong());
    }

    /** The device of {@code dataset} now, if there is one; {@code volsize} only orders the search. */
    Optional<Path> find(String dataset, long volsize) {
        Path link = udevLink(dataset);
        if (Files.exists(link)) {
            return Optional.of(link);
        }
        List<Path> present = zdDevices();
        forgetGone(present);
        List<Path> unknown = new ArrayList<>();
        List<Path> others = new ArrayList<>();
        for (Path zd : present) {
            Optional<String> known = known(zd);
            if (known.isEmpty()) {
                unknown.add(zd);
            } else if (!known.get().equals(dataset)) {
                others.add(zd);
            } else if (ask(zd).filter(dataset::equals).isPresent()) {
                return Optional.of(node(zd));
            }
        }
        unknown.sort(Comparator.comparing((Path zd) -> sectors(zd) != volsize / SECTOR).thenComparing(Path::toString));
        Optional<Path> found = first(unknown, dataset);
        if (found.isPresent() || !recheckDue()) {
            return found;
        }
        return first(others, dataset);
    }

    /** Every zvol device now present, by dataset (each device asked once in its life without udev links). */
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
            List<Path> present = zdDevices();
            forgetGone(present);
            for (Path zd : present) {
                known(zd).or(() -> ask(zd)).filter(missing::contains).ifPresent(dataset -> found.put(dataset, node(zd)));
            }
        }
        return found;
    }

    /** Forgets what was seen of {@code from}: the agent renamed it (its device stays, under the new name). */
    void renamed(String from) {
        seen.values().removeIf(s -> s.dataset().equals(from));
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

    private Optional<Path> first(List<Path> candidates, String dataset) {
        for (Path zd : candidates) {
            if (ask(zd).filter(dataset::equals).isPresent()) {
                return Optional.of(node(zd));
            }
        }
        return Optional.empty();
    }

    /** What was seen of this instance of the device, if anything. */
    private Optional<String> known(Path zd) {
        Seen s = seen.get(zd.getFileName().toString());
        return s != null && diskseq(zd).filter(s.diskseq()::equals).isPresent() ? Optional.of(s.dataset()) : Optional.empty();
    }

    /** Asks {@code zvol_id}; remembers the answer when the instance is the same before and after. */
    private Optional<String> ask(Path zd) {
        String name = zd.getFileName().toString();
        Optional<String> before = diskseq(zd);
        Optional<String> dataset = datasetOf(node(zd));
        Optional<String> after = diskseq(zd);
        if (dataset.isPresent() && before.isPresent() && before.equals(after)) {
            seen.put(name, new Seen(before.get(), dataset.get()));
        } else {
            seen.remove(name);
        }
        return dataset;
    }

    private void forgetGone(List<Path> present) {
        Set<String> names = new HashSet<>();
        present.forEach(zd -> names.add(zd.getFileName().toString()));
        seen.keySet().retainAll(names);
    }

    private boolean recheckDue() {
        long now = clock.getAsLong();
        long last = lastRecheck.get();
        return now - last >= TimeUnit.SECONDS.toNanos(RECHECK_SECONDS) && lastRecheck.compareAndSet(last, now);
    }

    private Path node(Path zd) {
        return devRoot.resolve(zd.getFileName().toString());
    }

    private static Optional<String> diskseq(Path sysEntry) {
        try {
            String value = Files.readString(sysEntry.resolve("diskseq")).strip();
            return value.isEmpty() ? Optional.empty() : Optional.of(value);
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    private Optional<String> datasetOf(Path node) {
        if (!Files.exists(node)) {
            return Optional.empty();
        }
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
