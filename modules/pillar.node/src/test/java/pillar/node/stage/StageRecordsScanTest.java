package pillar.node.stage;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class StageRecordsScanTest {
    @TempDir
    Path dir;

    @Test
    void aRecordGoneBetweenTheListingAndTheReadIsAbsentNotUnreadable() throws Exception {
        StageRecords records = new StageRecords(dir);
        // a name the listing returns whose file is gone when read: what another volume's concurrent
        // unstage leaves; counted unreadable, it kept every controller's disconnect from happening
        Files.createSymbolicLink(dir.resolve("pvc-gone.stage"), dir.resolve("deleted-meanwhile"));
        Files.writeString(dir.resolve("pvc-bad.stage"), "not a record");

        StageRecords.Scan scan = records.scan();
        assertThat(scan.records()).isEmpty();
        assertThat(scan.unreadable()).hasSize(1).allMatch(line -> line.contains("pvc-bad.stage"));
    }
}
