package pillar.sandbox;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * How a kept sandbox ({@code --keep}) is reached from the host: the VM has no network, but a
 * directory shared with the host. The host ({@code dev/sandbox exec -- CMD}) drops
 * {@code requests/<id>.argv} (the arguments, NUL-separated, written elsewhere and renamed in); the
 * sandbox runs it with its environment, writes the output to {@code responses/<id>.out} as it
 * comes and the exit status to {@code responses/<id>.status} (renamed in when complete).
 * {@code dev/sandbox stop} creates {@code stop}: the sandbox then shuts down cleanly.
 */
final class ControlChannel {
    private final Path dir;
    private final Path project;
    private final Map<String, String> env;
    private final PrintStream out;

    ControlChannel(Path dir, Path project, Map<String, String> env, PrintStream out) {
        this.dir = dir;
        this.project = project;
        this.env = env;
        this.out = out;
    }

    /** Serves requests until {@code stop} appears; writes {@code ready} (with {@code howToReach}) first. */
    void serve(String howToReach) throws IOException, InterruptedException {
        Path requests = Files.createDirectories(dir.resolve("requests"));
        Path responses = Files.createDirectories(dir.resolve("responses"));
        Files.deleteIfExists(dir.resolve("stop"));
        writeAtomically(dir.resolve("ready"), howToReach);
        while (!Files.exists(dir.resolve("stop"))) {
            for (Path request : list(requests)) {
                String id = request.getFileName().toString().replaceFirst("\\.argv$", "");
                Path taken = responses.resolve(id + ".argv");
                Files.move(request, taken, StandardCopyOption.ATOMIC_MOVE);
                List<String> argv = Arrays.stream(Files.readString(taken, StandardCharsets.UTF_8).split("\0"))
                        .filter(a -> !a.isEmpty()).toList();
                Thread.ofVirtual().start(() -> runRequest(id, argv, responses));
            }
            Thread.sleep(300);
        }
        out.println("stop requested from the host: shutting the sandbox down");
        Files.deleteIfExists(dir.resolve("ready"));
    }

    private void runRequest(String id, List<String> argv, Path responses) {
        int status;
        out.println("[exec " + id + "] " + String.join(" ", argv));
        try {
            status = argv.isEmpty() ? 2 : UserCommand.run(argv, project, env, responses.resolve(id + ".out").toFile());
        } catch (IOException e) {
            appendQuietly(responses.resolve(id + ".out"), e.getMessage() + "\n");
            status = 127;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            status = 130;
        }
        out.println("[exec " + id + "] exit status " + status);
        try {
            writeAtomically(responses.resolve(id + ".status"), Integer.toString(status));
        } catch (IOException e) {
            out.println("[exec " + id + "] cannot write its status: " + e);
        }
    }

    private static List<Path> list(Path dir) throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            return files.filter(f -> f.getFileName().toString().endsWith(".argv")).sorted().toList();
        }
    }

    static void writeAtomically(Path file, String text) throws IOException {
        Path temp = file.resolveSibling(file.getFileName() + ".tmp");
        Files.writeString(temp, text);
        Files.move(temp, file, StandardCopyOption.ATOMIC_MOVE);
    }

    private static void appendQuietly(Path file, String text) {
        try {
            Files.writeString(file, text, java.nio.file.StandardOpenOption.CREATE, java.nio.file.StandardOpenOption.APPEND);
        } catch (IOException ignored) {
            // the status still says it failed
        }
    }
}
