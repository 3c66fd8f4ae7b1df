package pillar.controller.crd;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import org.junit.jupiter.api.Test;

/**
 * Every reason a condition can carry that asks something of an operator has a row in the README's troubleshooting
 * table and a heading in docs/troubleshooting.md: a new reason without them fails here. The reasons of a condition
 * that is as it should be are listed below, by name.
 */
class ReasonsDocumentedTest {
    /** Reasons of a condition in its good state, and the Warning of an explicit choice (docs/security.md). */
    private static final Set<String> FINE = Set.of(Reasons.CONNECTED, Reasons.MUTUAL_TLS, Reasons.TLS_MODE_NONE,
            Reasons.RECORDS_INTACT, Reasons.DISCOVERED, Reasons.VALID, Reasons.NO_ORPHANS, Reasons.CREATED, Reasons.FENCED);

    @Test
    void everyReasonThatAsksForActionIsInTheReadmeTableAndHasARunbookHeading() throws IOException, IllegalAccessException {
        String readme = Files.readString(root().resolve("README.md"));
        String runbooks = Files.readString(root().resolve("docs/troubleshooting.md"));
        List<String> reasons = new ArrayList<>();
        for (Field field : Reasons.class.getFields()) {
            if (Modifier.isStatic(field.getModifiers()) && field.getType() == String.class) {
                reasons.add((String) field.get(null));
            }
        }
        assertThat(reasons).as("the reasons read").hasSizeGreaterThan(30).containsAll(FINE);

        for (String reason : reasons.stream().filter(r -> !FINE.contains(r)).toList()) {
            assertThat(readme).as("README's troubleshooting table has a row naming %s", reason)
                    .containsPattern("(?m)^\\| [^|]*`" + reason + "`[^|]*\\|");
            assertThat(runbooks).as("docs/troubleshooting.md has a heading naming %s", reason)
                    .containsPattern("(?m)^### .*`" + reason + "`");
        }
    }

    /** The checkout: the nearest directory up from here with README.md and docs/. */
    private static Path root() {
        for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            if (Files.isRegularFile(dir.resolve("README.md")) && Files.isDirectory(dir.resolve("docs"))) {
                return dir;
            }
        }
        throw new IllegalStateException("no README.md with docs/ above " + Path.of("").toAbsolutePath());
    }
}
