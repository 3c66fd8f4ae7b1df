package pillar.runtime.durable;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A new record directory survives a crash: seen from outside with strace (this host's, which the test
 * needs: without it, it fails), a process that opens a record directory three levels below an
 * existing one fsyncs the directory holding each new one, and the record directory itself after the
 * record's rename into it.
 */
class DurableDirectoriesHostIT {
    @TempDir
    Path dir;

    @Test
    void eachNewDirectorysParentIsFsyncedAndTheDirectoryAfterTheRename() throws Exception {
        Path strace = Path.of("/usr/bin/strace");
        assertThat(strace).as("strace is needed to watch the fsyncs (apt-get install strace)").isExecutable();
        Path records = dir.resolve("state/a/records");
        String path = Optional.ofNullable(System.getProperty("jdk.module.path")).map(p -> p + File.pathSeparator).orElse("")
                + System.getProperty("java.class.path");
        Path trace = dir.resolve("trace");
        Process probe = new ProcessBuilder(strace.toString(), "-f", "-qq", "-y", "-e", "trace=fsync,fdatasync",
                "-o", trace.toString(), Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-cp", path,
                RecordDirectoryProbe.class.getName(), records.toString()).redirectErrorStream(true)
                .redirectOutput(dir.resolve("probe.log").toFile()).start();
        assertThat(probe.waitFor(2, TimeUnit.MINUTES)).as("the probe ends").isTrue();
        assertThat(probe.exitValue()).as(Files.readString(dir.resolve("probe.log"))).isZero();

        List<String> synced = Files.readAllLines(trace).stream().filter(line -> line.contains("fsync(")).toList();
        for (Path parent : List.of(dir, dir.resolve("state"), dir.resolve("state/a"), records)) {
            String real = parent.toRealPath().toString();
            assertThat(synced).as("an fsync of %s", parent).anyMatch(line -> line.contains("<" + real + ">)"));
        }
        assertThat(records.resolve("pvc-a")).hasContent("probe\n");
    }
}
