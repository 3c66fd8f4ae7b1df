package pillar.node.fs;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import pillar.runtime.exec.Command;
import pillar.runtime.exec.CommandFailedException;
import pillar.runtime.exec.CommandResult;
import pillar.runtime.exec.ProcessRunner;

/**
 * A recording {@link ProcessRunner} that answers the filesystem tools the way they answer on a real
 * device, over device files (regular files, or links to them): {@code blkid -p} exits 2 on a
 * device nobody formatted and prints {@code TYPE=} on one that {@code mkfs.*} formatted;
 * {@code mkfs.*} refuses a device that already holds a filesystem (as mke2fs does when it cannot
 * ask); {@code blockdev --getsize64} prints the file's size; the resize tools succeed. A command can
 * be made to fail once with {@link #failNext}. Unknown programs fail with 127, like a missing binary.
 */
public final class FakeProcessRunner implements ProcessRunner {
    private final List<Command> commands = new ArrayList<>();
    private final Map<Path, String> filesystems = new HashMap<>();
    private final Map<String, CommandFailedException> failures = new HashMap<>();

    @Override
    public synchronized CommandResult run(Command command) {
        commands.add(command);
        List<String> argv = command.argv();
        String device = argv.get(argv.size() - 1);
        CommandFailedException failure = failures.remove(command.program());
        if (failure != null) {
            throw failure;
        }
        return switch (command.program()) {
            case "blkid" -> {
                String type = filesystems.get(real(device));
                if (type == null) {
                    throw new CommandFailedException(command, 2, "", false);
                }
                yield new CommandResult("DEVNAME=" + device + "\nTYPE=" + type + "\n", "");
            }
            case "mkfs.ext4", "mkfs.xfs" -> {
                if (filesystems.containsKey(real(device))) {
                    throw new CommandFailedException(command, 1, device + " contains a file system", false);
                }
                filesystems.put(real(device), command.program().substring(5));
                yield new CommandResult("", "");
            }
            case "blockdev" -> new CommandResult(String.valueOf(size(device)) + "\n", "");
            case "resize2fs", "xfs_growfs" -> new CommandResult("", "");
            default -> throw new CommandFailedException(command, 127, "cannot start: no such program", false);
        };
    }

    /** The next run of {@code program} fails with this exit code and stderr. */
    public synchronized void failNext(String program, int exitCode, String stderr) {
        failures.put(program, new CommandFailedException(Command.of(java.time.Duration.ofSeconds(1), program), exitCode,
                stderr, false));
    }

    /** Puts a filesystem on a device, as if it had been formatted before. */
    public synchronized void formatted(Path device, String type) {
        filesystems.put(real(device.toString()), type);
    }

    public synchronized List<Command> commands() {
        return List.copyOf(commands);
    }

    /** How many commands ran {@code program}. */
    public synchronized long count(String program) {
        return commands.stream().filter(c -> c.program().equals(program)).count();
    }

    private static Path real(String device) {
        try {
            return Path.of(device).toRealPath();
        } catch (IOException e) {
            throw new UncheckedIOException("no such device " + device, e);
        }
    }

    private static long size(String device) {
        try {
            return Files.size(Path.of(device));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
