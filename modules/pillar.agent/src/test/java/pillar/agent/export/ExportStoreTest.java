package pillar.agent.export;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import pillar.agent.configfs.HostAuth;
import pillar.agent.configfs.PortAddress;
import pillar.api.value.DhchapSecret;
import pillar.api.value.Nqn;
import pillar.api.value.VolumeId;

class ExportStoreTest {
    @TempDir
    Path state;

    private static ExportRecord record(String id, Set<Nqn> hosts) {
        return new ExportRecord(VolumeId.of(id), "fast", Path.of("/dev/vg0/" + id), PortAddress.tcp("10.0.0.5", 4420),
                true, hosts);
    }

    @Test
    void recordsRoundTripAndSurviveARestart() {
        Nqn host = Nqn.of("nqn.2014-08.org.nvmexpress:uuid:0f9c2a6e-7c1b-4b8e-9a57-3e2d1c0b9a88");
        new ExportStore(state).write(record("pvc-b", Set.of(host)));
        new ExportStore(state).write(record("pvc-a", Set.of()));
        ExportStore restarted = new ExportStore(state);
        assertThat(restarted.list(ExportRecord.class)).containsExactly(record("pvc-a", Set.of()), record("pvc-b", Set.of(host)));
        assertThat(restarted.read(VolumeId.of("pvc-b"), ExportRecord.class).orElseThrow().subsystem().value())
                .isEqualTo("nqn.2024-06.io.pillar-csi:pvc-b");
        restarted.delete(VolumeId.of("pvc-b"));
        restarted.delete(VolumeId.of("pvc-b"));
        assertThat(restarted.read(VolumeId.of("pvc-b"), ExportRecord.class)).isEmpty();
    }

    @Test
    void aDamagedRecordIsReportedLeftOnDiskAndCostsOnlyItsOwnVolume() throws Exception {
        pillar.agent.state.DamagedRecords damaged = new pillar.agent.state.DamagedRecords();
        ExportStore store = new ExportStore(state, damaged);
        store.write(record("pvc-a", Set.of()));
        store.write(record("pvc-b", Set.of()));
        Path file = state.resolve("exports/pvc-a");
        String whole = Files.readString(file);
        Files.writeString(file, whole.replace("acl=true", "acl=maybe"));

        assertThat(store.list(ExportRecord.class)).as("every other record").containsExactly(record("pvc-b", Set.of()));
        assertThat(damaged.list()).singleElement().satisfies(d -> {
            assertThat(d.kind()).isEqualTo("export");
            assertThat(d.file()).isEqualTo(file.toAbsolutePath());
            assertThat(d.describe()).contains(file.toString(), "is damaged", "restores or removes");
        });
        assertThat(store.damagedVolumes()).containsExactly(VolumeId.of("pvc-a"));
        assertThat(file).as("left for the operator").exists();
        assertThatThrownBy(() -> store.read(VolumeId.of("pvc-a"), ExportRecord.class)).hasMessageContaining("damaged");

        Files.writeString(file, record("pvc-z", Set.of()).encode());
        assertThatThrownBy(() -> store.read(VolumeId.of("pvc-a"), ExportRecord.class)).hasMessageContaining("names volume pvc-z");
        assertThat(store.list(ExportRecord.class)).containsExactly(record("pvc-b", Set.of()));

        Files.writeString(file, whole); // the operator restores it
        assertThat(store.list(ExportRecord.class)).hasSize(2);
        assertThat(damaged.list()).isEmpty();
        assertThat(store.damagedVolumes()).isEmpty();
    }

    @Test
    void thePortIdIsStableAndSharedPerAddress() {
        PortAddress address = PortAddress.tcp("10.0.0.5", 4420);
        assertThat(Exporter.portId(address)).isEqualTo(Exporter.portId(PortAddress.tcp("10.0.0.5", 4420)));
        assertThat(Exporter.portId(address)).isNotEqualTo(Exporter.portId(PortAddress.tcp("10.0.0.5", 4421)));
        assertThat(Exporter.portId(address).value()).isBetween(1, 65_535);
    }

    @Test
    void keysRoundTripAVersion1RecordReadsWithoutAuthAndTheNewestKeysWin() throws Exception {
        Nqn host = Nqn.of("nqn.2014-08.org.nvmexpress:uuid:0f9c2a6e-7c1b-4b8e-9a57-3e2d1c0b9a88");
        HostAuth older = HostAuth.oneWay(DhchapSecret.encode(1, new byte[32]));
        HostAuth newer = new HostAuth(DhchapSecret.encode(0, new byte[48]), Optional.of(DhchapSecret.encode(3, new byte[64])),
                "hmac(sha384)", "ffdhe3072");
        ExportRecord a = new ExportRecord(VolumeId.of("pvc-a"), "fast", Path.of("/dev/vg0/pvc-a"),
                PortAddress.tcp("10.0.0.5", 4420), true, Set.of(host), true,
                Map.of(host, new RecordedAuth(older, Instant.ofEpochMilli(1_000))));
        ExportRecord b = record("pvc-b", Set.of()).withHostAuth(host, new RecordedAuth(newer, Instant.ofEpochMilli(2_000)));
        ExportStore store = new ExportStore(state);
        store.write(a);
        store.write(b);
        assertThat(new ExportStore(state).list(ExportRecord.class)).containsExactly(a, b);
        assertThat(a.toString()).doesNotContain(older.hostKey().value().substring(10, 30));

        Path file = state.resolve("exports/pvc-c");
        Files.writeString(file, "version=1\nvolume=pvc-c\nbackend=fast\ndevice=/dev/vg0/pvc-c\ntraddr=10.0.0.5\n"
                + "trsvcid=4420\nacl=true\nhosts=" + host + "\n");
        assertThat(store.read(VolumeId.of("pvc-c"), ExportRecord.class)).contains(record("pvc-c", Set.of(host)));

        Map<Nqn, RecordedAuth> newest = Map.of(host, b.auth().get(host));
        assertThat(a.keys(newest)).containsExactly(Map.entry(host, newer));
        assertThat(b.keys(Map.of(host, a.auth().get(host)))).as("older keys never win").containsExactly(Map.entry(host, newer));
        assertThat(b.withAllowedHosts(Set.of()).auth()).as("a denied host's keys go").isEmpty();
    }
}
