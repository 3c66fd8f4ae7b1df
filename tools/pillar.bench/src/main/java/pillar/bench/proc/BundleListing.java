package pillar.bench.proc;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** The size of one entry of a tar archive, from {@code tar -tvf}'s listing (GNU tar: mode, owner, size, date, time, name). */
final class BundleListing {
    private static final Pattern LINE = Pattern.compile("^\\S+\\s+\\S+\\s+(\\d+)\\s+\\S+\\s+\\S+\\s+(.+)$");

    private BundleListing() {
    }

    static OptionalLong entryBytes(Path archive, String nameRegex) {
        Path listing = null;
        try {
            listing = Files.createTempFile("bundle-listing", ".txt");
            Process tar = new ProcessBuilder("tar", "-tvf", archive.toString()).redirectErrorStream(true)
                    .redirectOutput(listing.toFile()).start();
            if (!tar.waitFor(60, TimeUnit.SECONDS)) {
                tar.destroyForcibly();
                throw new IllegalStateException("tar -tvf " + archive + " did not finish within 60 s");
            }
            String text = Files.readString(listing, StandardCharsets.UTF_8);
            if (tar.exitValue() != 0) {
                throw new IllegalStateException("tar -tvf " + archive + " failed: " + text);
            }
            return parse(text, nameRegex);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        } finally {
            if (listing != null) {
                listing.toFile().delete();
            }
        }
    }

    static OptionalLong parse(String listing, String nameRegex) {
        Pattern name = Pattern.compile(nameRegex);
        for (String line : listing.split("\n")) {
            Matcher m = LINE.matcher(line);
            if (m.matches() && name.matcher(m.group(2)).matches()) {
                return OptionalLong.of(Long.parseLong(m.group(1)));
            }
        }
        return OptionalLong.empty();
    }
}
