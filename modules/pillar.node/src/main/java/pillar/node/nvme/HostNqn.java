package pillar.node.nvme;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Optional;
import java.util.UUID;
import java.util.logging.Logger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import pillar.runtime.durable.AtomicFiles;
import pillar.api.value.InvalidValueException;
import pillar.api.value.Nqn;

/**
 * The host's NVMe Qualified Name, from the host ({@code /etc/nvme/hostnqn}), never from an image. If
 * the file is absent, a name {@code nqn.2014-08.org.nvmexpress:uuid:<uuid>} is generated once and
 * written atomically, so every later start (and nvme-cli, if installed) uses the same one. The UUID
 * is the machine's hardware UUID when it has a usable one (as nvme-cli's {@code gen-hostnqn} does),
 * else a random one.
 */
public final class HostNqn {
    private static final Logger LOG = Logger.getLogger(HostNqn.class.getName());
    private static final String UUID_PREFIX = "nqn.2014-08.org.nvmexpress:uuid:";
    private static final Pattern UUID_FORM = Pattern.compile(Pattern.quote(UUID_PREFIX)
            + "([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})");
    private static final Pattern UUID_TEXT = Pattern.compile(
            "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}");

    private HostNqn() {
    }

    /** Reads the host NQN, creating the file with a random UUID when it does not exist; a malformed file is an error. */
    public static Nqn loadOrCreate(Path file) {
        return loadOrCreate(file, Optional.empty());
    }

    /**
     * Reads the host NQN, creating the file when it does not exist from the hardware UUID under
     * {@code sysRoot} (random when there is none); a malformed file is an error.
     */
    public static Nqn loadOrCreate(Path file, Path sysRoot) {
        return loadOrCreate(file, hardwareUuid(sysRoot));
    }

    private static Nqn loadOrCreate(Path file, Optional<String> hardware) {
        if (Files.exists(file)) {
            String text;
            try {
                text = Files.readString(file, StandardCharsets.US_ASCII).strip();
            } catch (IOException e) {
                throw new UncheckedIOException("cannot read the host NQN from " + file, e);
            }
            try {
                return Nqn.of(text);
            } catch (InvalidValueException e) {
                throw new IllegalArgumentException(file + " does not hold a valid host NQN (" + e.getMessage()
                        + "); fix or remove it (a new one is then generated)", e);
            }
        }
        Nqn generated = Nqn.of(UUID_PREFIX + hardware.orElseGet(() -> UUID.randomUUID().toString()));
        AtomicFiles.write(file, (generated.value() + "\n").getBytes(StandardCharsets.US_ASCII));
        LOG.info(() -> "generated the host NQN " + generated + " and wrote it to " + file);
        return generated;
    }

    /**
     * A warning when {@code nqn} is probably shared with other machines: it has the UUID form but
     * names another UUID than this machine's hardware UUID ({@code <sysRoot>/class/dmi/id/product_uuid}),
     * as when an OS image with a baked-in host NQN file is cloned. Empty when the NQN is not of that
     * form (a hand-written name is legitimate) or the hardware UUID is unknown. Never a refusal.
     */
    public static Optional<String> sharedWarning(Nqn nqn, Path file, Path sysRoot) {
        Matcher m = UUID_FORM.matcher(nqn.value());
        if (!m.matches()) {
            return Optional.empty();
        }
        String named = m.group(1).toLowerCase(Locale.ROOT);
        return hardwareUuid(sysRoot).filter(hardware -> !hardware.equals(named)).map(hardware -> "the host NQN " + nqn
                + " (from " + file + ") names UUID " + named + ", but this machine's hardware UUID ("
                + productUuid(sysRoot) + ") is " + hardware + ": the file was probably copied with an OS image, and "
                + "every machine made from that image then has the same NQN, so the storage target cannot tell them "
                + "apart and a ReadWriteOnce volume can be written by two of them (the controller refuses to publish "
                + "to nodes it sees sharing one). If this NQN was not chosen by hand to be unique, give this node its "
                + "own: drain it, unstage its volumes, then replace " + file + " and restart pillar-node");
    }

    /** The machine's hardware UUID in lower case, if readable and not a placeholder (all zeros or all f). */
    static Optional<String> hardwareUuid(Path sysRoot) {
        try {
            String text = Files.readString(productUuid(sysRoot), StandardCharsets.US_ASCII).strip().toLowerCase(Locale.ROOT);
            if (!UUID_TEXT.matcher(text).matches() || text.replace("-", "").chars().distinct().count() == 1) {
                return Optional.empty();
            }
            return Optional.of(text);
        } catch (IOException | SecurityException e) {
            return Optional.empty(); // absent (no DMI), or not readable without root
        }
    }

    private static Path productUuid(Path sysRoot) {
        return sysRoot.resolve("class/dmi/id/product_uuid");
    }
}
