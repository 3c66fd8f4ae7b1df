package pillar.node.nvme;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.UUID;
import java.util.logging.Logger;

import pillar.api.durable.AtomicFiles;
import pillar.api.value.InvalidValueException;
import pillar.api.value.Nqn;

/**
 * The host's NVMe Qualified Name, from the host ({@code /etc/nvme/hostnqn}), never from an image. If
 * the file is absent, a name {@code nqn.2014-08.org.nvmexpress:uuid:<random uuid>} is generated once
 * and written atomically, so every later start (and nvme-cli, if installed) uses the same one.
 */
public final class HostNqn {
    private static final Logger LOG = Logger.getLogger(HostNqn.class.getName());

    private HostNqn() {
    }

    /** Reads the host NQN, creating the file when it does not exist; a malformed file is an error. */
    public static Nqn loadOrCreate(Path file) {
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
        Nqn generated = Nqn.of("nqn.2014-08.org.nvmexpress:uuid:" + UUID.randomUUID());
        AtomicFiles.write(file, (generated.value() + "\n").getBytes(StandardCharsets.US_ASCII));
        LOG.info(() -> "generated the host NQN " + generated + " and wrote it to " + file);
        return generated;
    }
}
