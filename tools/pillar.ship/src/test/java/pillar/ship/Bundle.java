package pillar.ship;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * What dev/bundle wrote (target/bundle, or -Dpillar.bundle.dir): its tarballs unpacked with the
 * system's tar as a user would, their SHA256SUMS checked, and commands run with deadlines.
 */
final class Bundle {
    private Bundle() {
    }

    /** The bundle directory; fails (never skips) when dev/bundle has not written it. */
    static Path dir() {
        Path dir = Path.of(System.getProperty("pillar.bundle.dir", "../../target/bundle"));
        assertThat(dir.resolve("SHA256SUMS"))
                .as("dev/bundle's output (run dev/bundle first; dev/test does)").isRegularFile();
        return dir;
    }

    /** The one file in the bundle directory whose name ends with {@code suffix}. */
    static Path tarball(String suffix) throws IOException {
        try (Stream<Path> files = Files.list(dir())) {
            List<Path> found = files.filter(p -> p.getFileName().toString().endsWith(suffix)).toList();
            assertThat(found).as("one *" + suffix + " in " + dir()).hasSize(1);
            return found.getFirst();
        }
    }

    /** Unpacks {@code tarball} into {@code into} with tar; returns the one top-level directory. */
    static Path unpack(Path tarball, Path into) throws IOException {
        run(Duration.ofMinutes(3), "tar", "-C", into.toString(), "-xf", tarball.toAbsolutePath().toString());
        try (Stream<Path> top = Files.list(into)) {
            List<Path> dirs = top.toList();
            assertThat(dirs).as("one top-level directory in " + tarball).hasSize(1);
            return dirs.getFirst();
        }
    }

    /** Removes a tree with rm (JUnit's own clean-up warns about every symbolic link an image holds). */
    static void removeTree(Path dir) throws IOException {
        run(Duration.ofMinutes(2), "rm", "-rf", "--one-file-system", dir.toString());
        Files.createDirectories(dir);
    }

    /** Checks every line of {@code dir}/SHA256SUMS, and that it lists every file there. */
    static int verifyChecksums(Path dir) throws IOException {
        List<String> lines = Files.readAllLines(dir.resolve("SHA256SUMS"));
        List<String> listed = new ArrayList<>();
        for (String line : lines) {
            String expected = line.substring(0, 64);
            String name = line.substring(66);
            assertThat(sha256(dir.resolve(name))).as("sha256 of " + name).isEqualTo(expected);
            listed.add(name);
        }
        try (Stream<Path> files = Files.walk(dir)) {
            List<String> all = files.filter(p -> Files.isRegularFile(p, java.nio.file.LinkOption.NOFOLLOW_LINKS)).map(p -> dir.relativize(p).toString())
                    .filter(n -> !n.equals("SHA256SUMS")).toList();
            assertThat(listed).as("SHA256SUMS lists every file").containsExactlyInAnyOrderElementsOf(all);
        }
        return listed.size();
    }

    static String sha256(Path file) throws IOException {
        try (var in = Files.newInputStream(file)) {
            MessageDigest sha = MessageDigest.getInstance("SHA-256");
            byte[] buffer = new byte[1 << 16];
            for (int n = in.read(buffer); n > 0; n = in.read(buffer)) {
                sha.update(buffer, 0, n);
            }
            return HexFormat.of().formatHex(sha.digest());
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Runs a command (an argument list) with a deadline; returns its output; fails unless it exits 0. */
    static String run(Duration deadline, String... command) throws IOException {
        Result r = exec(deadline, List.of(command));
        assertThat(r.exit()).as("exit status of " + String.join(" ", command) + "; output:\n" + r.output()).isZero();
        return r.output();
    }

    record Result(int exit, String output) {
    }

    /** Runs a command with a deadline (killed when it passes); output and error merged. */
    static Result exec(Duration deadline, List<String> command) throws IOException {
        Path out = Files.createTempFile("pillar-bundle-cmd", ".out");
        try {
            Process p = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(out.toFile()).start();
            if (!p.waitFor(deadline.toMillis(), TimeUnit.MILLISECONDS)) {
                p.destroyForcibly().waitFor();
                throw new AssertionError("no answer within " + deadline + ": " + command + "\n"
                        + Files.readString(out, StandardCharsets.UTF_8));
            }
            return new Result(p.exitValue(), Files.readString(out, StandardCharsets.UTF_8));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException(e);
        } finally {
            Files.deleteIfExists(out);
        }
    }
}
