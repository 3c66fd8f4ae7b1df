package pillar.runtime.durable;

import java.nio.file.Path;

import pillar.api.value.VolumeId;

/** Opens a record directory at {@code args[0]} and writes one record into it: the process {@link DurableDirectoriesHostIT} traces. */
public final class RecordDirectoryProbe {
    private RecordDirectoryProbe() {
    }

    public static void main(String[] args) {
        RecordDirectory.open(Path.of(args[0]), "", "the probe record", false).write(VolumeId.of("pvc-a"), "probe\n");
    }
}
