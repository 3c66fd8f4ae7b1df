package pillar.agent.backend;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;

import pillar.runtime.exec.Command;
import pillar.runtime.exec.CommandFailedException;

/** Real tool output kept as test resources (see {@code lvm/README.md}, {@code zfs/README.md}): one capture per command. */
public final class Captures {
    private Captures() {
    }

    /** What one command printed and how it exited. */
    public record Capture(String argv, String stdout, String stderr, int exitCode) {
        /** The failure the process runner reports for this capture. */
        public CommandFailedException failure() {
            Command command = new Command(Arrays.asList(argv.split(" ")), Duration.ofSeconds(1));
            return new CommandFailedException(command, exitCode, stderr, false);
        }
    }

    /** The LVM capture NAME from {@code lvm/NAME.{cmd,out,err,rc}}. */
    public static Capture lvm(String name) {
        return new Capture(read("lvm/" + name + ".cmd").strip(), read("lvm/" + name + ".out"), read("lvm/" + name + ".err"),
                Integer.parseInt(read("lvm/" + name + ".rc").strip()));
    }

    /** The ZFS capture NAME from {@code zfs/NAME.{cmd,out,err,rc}}. */
    public static Capture zfs(String name) {
        return new Capture(read("zfs/" + name + ".cmd").strip(), read("zfs/" + name + ".out"), read("zfs/" + name + ".err"),
                Integer.parseInt(read("zfs/" + name + ".rc").strip()));
    }

    /** A resource of this package, as text. */
    public static String read(String resource) {
        try (InputStream in = Captures.class.getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException("test resource pillar/agent/backend/" + resource + " is missing");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
