package pillar.agent.export;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import pillar.agent.configfs.PortAddress;
import pillar.agent.nfs.NfsAccess;
import pillar.agent.nfs.NfsClient;
import pillar.agent.nfs.NfsSquash;
import pillar.agent.nfs.NfsTransport;
import pillar.api.value.InvalidValueException;
import pillar.api.value.VolumeId;

/** NFS export records beside the NVMe-oF ones: round trip, each kind's calls see only theirs, old records read as before. */
class NfsExportStoreTest {
    static final NfsClient SERVER = NfsClient.parse("server", "10.0.0.5");
    static final NfsClient A = NfsClient.parse("a", "10.77.1.2");
    static final NfsClient V6 = NfsClient.parse("b", "fd00::2");

    @TempDir
    Path state;

    static NfsExportRecord nfs(String id, Set<NfsClient> clients) {
        return new NfsExportRecord(VolumeId.of(id), "shared", Path.of("/tank/nfs/" + id), SERVER, clients);
    }

    @Test
    void nfsRecordsRoundTripAcrossARestartAndStayApartFromNvmeofOnes() {
        ExportRecord block = new ExportRecord(VolumeId.of("pvc-b"), "fast", Path.of("/dev/vg0/pvc-b"), PortAddress.tcp("10.0.0.5", 4420),
                true, Set.of());
        new ExportStore(state).write(nfs("pvc-a", Set.of(A, V6)));
        new ExportStore(state).write(block);
        new ExportStore(state).write(nfs("pvc-c", Set.of()));

        ExportStore restarted = new ExportStore(state);

        assertThat(restarted.list(NfsExportRecord.class)).containsExactly(nfs("pvc-a", Set.of(A, V6)), nfs("pvc-c", Set.of()));
        assertThat(restarted.list(ExportRecord.class)).containsExactly(block);
        assertThat(restarted.read(VolumeId.of("pvc-a"), NfsExportRecord.class)).contains(nfs("pvc-a", Set.of(A, V6)));
        assertThat(restarted.read(VolumeId.of("pvc-a"), ExportRecord.class)).isEmpty();
        assertThat(restarted.read(VolumeId.of("pvc-b"), NfsExportRecord.class)).isEmpty();
        assertThat(restarted.read(VolumeId.of("pvc-b"), ExportRecord.class)).contains(block);
        assertThat(restarted.read(VolumeId.of("pvc-a"))).as("whatever its protocol").contains(nfs("pvc-a", Set.of(A, V6)));
        assertThat(restarted.read(VolumeId.of("pvc-b"))).as("whatever its protocol").contains(block);
        assertThat(restarted.read(VolumeId.of("pvc-z"))).isEmpty();
    }

    @Test
    void theFileSaysItsProtocolAndTheFsidIsNotStored() throws Exception {
        new ExportStore(state).write(nfs("pvc-a", Set.of(V6, A)));

        String text = Files.readString(state.resolve("exports").resolve("pvc-a"));

        assertThat(text).isEqualTo("version=1\nprotocol=nfs\nvolume=pvc-a\nbackend=shared\npath=/tank/nfs/pvc-a\nserver=10.0.0.5\n"
                + "clients=10.77.1.2,fd00:0:0:0:0:0:0:2\n");
        assertThat(nfs("pvc-a", Set.of()).fsid()).isEqualTo(pillar.agent.nfs.NfsFsid.of(VolumeId.of("pvc-a")));
    }

    @Test
    void aReadOnlyClientsAccessRoundTripsAndIsWrittenAsItsOwnLine() throws Exception {
        NfsExportRecord mixed = new NfsExportRecord(VolumeId.of("pvc-a"), "shared", Path.of("/tank/nfs/pvc-a"), SERVER, Set.of(A, V6),
                Set.of(V6));
        new ExportStore(state).write(mixed);

        assertThat(Files.readString(state.resolve("exports").resolve("pvc-a"))).endsWith(
                "clients=10.77.1.2,fd00:0:0:0:0:0:0:2\nreadonly=fd00:0:0:0:0:0:0:2\n");
        NfsExportRecord read = new ExportStore(state).read(VolumeId.of("pvc-a"), NfsExportRecord.class).orElseThrow();
        assertThat(read).isEqualTo(mixed);
        assertThat(read.access(V6)).isEqualTo(NfsAccess.READ_ONLY);
        assertThat(read.access(A)).isEqualTo(NfsAccess.READ_WRITE);
        assertThat(read.withClients(Set.of(A)).readOnly()).isEmpty();
        assertThat(read.withClient(V6, NfsAccess.READ_WRITE).readOnly()).isEmpty();
        assertThat(read.withClient(A, NfsAccess.READ_ONLY).readOnly()).containsExactlyInAnyOrder(A, V6);
    }

    @Test
    void aRecordWrittenBeforeAccessExistedReadsWithEveryClientReadWrite() throws Exception {
        Path file = Files.createDirectories(state.resolve("exports")).resolve("pvc-a");
        Files.writeString(file, "version=1\nprotocol=nfs\nvolume=pvc-a\nbackend=shared\npath=/tank/nfs/pvc-a\nserver=10.0.0.5\n"
                + "clients=10.77.1.2,fd00:0:0:0:0:0:0:2\n");

        NfsExportRecord read = new ExportStore(state).read(VolumeId.of("pvc-a"), NfsExportRecord.class).orElseThrow();

        assertThat(read).isEqualTo(nfs("pvc-a", Set.of(A, V6)));
        assertThat(read.readOnly()).isEmpty();
        assertThat(read.access(A)).isEqualTo(NfsAccess.READ_WRITE);
        assertThat(read.access(V6)).isEqualTo(NfsAccess.READ_WRITE);
        assertThat(read.squash()).as("written before root squashing existed").isEqualTo(NfsSquash.NO_ROOT_SQUASH);
    }

    @Test
    void rootSquashingRoundTripsAsItsOwnLineThroughEveryChangeAndAnUnknownValueIsDamage() throws Exception {
        NfsExportRecord squashed = new NfsExportRecord(VolumeId.of("pvc-a"), "shared", Path.of("/tank/nfs/pvc-a"), SERVER, Set.of(A),
                Set.of(), Set.of(), NfsSquash.ROOT_SQUASH);
        ExportStore store = new ExportStore(state, new pillar.agent.state.DamagedRecords());
        store.write(squashed);
        Path file = state.resolve("exports").resolve("pvc-a");

        assertThat(Files.readString(file)).endsWith("clients=10.77.1.2\nsquash=root_squash\n");
        assertThat(new ExportStore(state).read(VolumeId.of("pvc-a"), NfsExportRecord.class)).contains(squashed);
        assertThat(List.of(squashed.withClient(V6, NfsAccess.READ_ONLY), squashed.withClients(Set.of()), squashed.withFencing(A),
                squashed.withFencing(A).withoutFencing(A), squashed.withPath(Path.of("/tank/nfs/moved"))))
                .allSatisfy(r -> assertThat(r.squash()).isEqualTo(NfsSquash.ROOT_SQUASH));
        assertThat(squashed).isNotEqualTo(nfs("pvc-a", Set.of(A)));

        Files.writeString(file, Files.readString(file).replace("squash=root_squash", "squash=all_squash"));
        assertThatThrownBy(() -> store.read(VolumeId.of("pvc-a"), NfsExportRecord.class)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("damaged");
    }

    @Test
    void rpcWithTlsRoundTripsAsItsOwnLineThroughEveryChangeAndAnUnknownValueIsDamage() throws Exception {
        NfsExportRecord tls = new NfsExportRecord(VolumeId.of("pvc-a"), "shared", Path.of("/tank/nfs/pvc-a"), SERVER, Set.of(A),
                Set.of(), Set.of(), NfsSquash.ROOT_SQUASH, NfsTransport.TLS);
        ExportStore store = new ExportStore(state, new pillar.agent.state.DamagedRecords());
        store.write(tls);
        Path file = state.resolve("exports").resolve("pvc-a");

        assertThat(Files.readString(file)).endsWith("clients=10.77.1.2\nsquash=root_squash\ntransport=tls\n");
        assertThat(new ExportStore(state).read(VolumeId.of("pvc-a"), NfsExportRecord.class)).contains(tls);
        assertThat(List.of(tls.withClient(V6, NfsAccess.READ_ONLY), tls.withClients(Set.of()), tls.withFencing(A),
                tls.withFencing(A).withoutFencing(A), tls.withPath(Path.of("/tank/nfs/moved"))))
                .allSatisfy(r -> assertThat(r.transport()).isEqualTo(NfsTransport.TLS));
        assertThat(nfs("pvc-a", Set.of(A)).transport()).as("a record without the line").isEqualTo(NfsTransport.ANY);
        assertThat(tls.describe()).endsWith("with root_squash over RPC-with-TLS only");
        assertThatThrownBy(() -> new NfsExportRecord(VolumeId.of("pvc-a"), "shared", Path.of("/tank/nfs/pvc-a"), SERVER, Set.of(A),
                Set.of(), Set.of(), NfsSquash.ROOT_SQUASH, NfsTransport.OTHER)).isInstanceOf(IllegalArgumentException.class);

        Files.writeString(file, Files.readString(file).replace("transport=tls", "transport=none"));
        assertThatThrownBy(() -> store.read(VolumeId.of("pvc-a"), NfsExportRecord.class)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("damaged");
    }

    @Test
    void aFencingClientRoundTripsAsItsOwnLineAndAllowedAgainIsNoLongerFencing() throws Exception {
        NfsExportRecord noted = nfs("pvc-a", Set.of(A, V6)).withFencing(V6);
        new ExportStore(state).write(noted);

        assertThat(Files.readString(state.resolve("exports").resolve("pvc-a"))).endsWith("clients=10.77.1.2\nfencing=fd00:0:0:0:0:0:0:2\n");
        NfsExportRecord read = new ExportStore(state).read(VolumeId.of("pvc-a"), NfsExportRecord.class).orElseThrow();
        assertThat(read).isEqualTo(noted);
        assertThat(read.clients()).containsExactly(A);
        assertThat(read.fencing()).containsExactly(V6);
        assertThat(read.withoutFencing(V6)).isEqualTo(nfs("pvc-a", Set.of(A)));
        assertThat(read.withClient(V6, NfsAccess.READ_ONLY).fencing()).isEmpty();
        assertThat(read.withClients(Set.of(A, V6)).fencing()).isEmpty();
        assertThat(read.withPath(Path.of("/tank/nfs/moved")).fencing()).containsExactly(V6);
        assertThatThrownBy(() -> new NfsExportRecord(VolumeId.of("pvc-a"), "shared", Path.of("/tank/nfs/pvc-a"), SERVER, Set.of(A),
                Set.of(), Set.of(A))).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aReadOnlyClientMustBeAnAllowedOne() {
        assertThatThrownBy(() -> new NfsExportRecord(VolumeId.of("pvc-a"), "shared", Path.of("/tank/nfs/pvc-a"), SERVER, Set.of(A),
                Set.of(V6))).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aDamagedNfsRecordIsLeftOutOfTheListingAndReportedNamingItsFile() throws Exception {
        pillar.agent.state.DamagedRecords damaged = new pillar.agent.state.DamagedRecords();
        ExportStore store = new ExportStore(state, damaged);
        store.write(nfs("pvc-a", Set.of(A)));
        store.write(nfs("pvc-b", Set.of(A)));
        Path file = state.resolve("exports").resolve("pvc-a");
        Files.writeString(file, Files.readString(file).replace("10.77.1.2", "10.0.0.0/8"));

        assertThat(store.list(NfsExportRecord.class)).containsExactly(nfs("pvc-b", Set.of(A)));
        assertThat(damaged.list()).singleElement().satisfies(d -> assertThat(d.file()).isEqualTo(file.toAbsolutePath()));
        assertThatThrownBy(() -> store.read(VolumeId.of("pvc-a"), NfsExportRecord.class)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining(file.toString()).hasMessageContaining("damaged");
        assertThat(store.list(ExportRecord.class)).isEmpty();
        assertThat(file).exists();
    }

    @Test
    void aRecordRefusesAPathNfsdMustNotGet() {
        assertThatThrownBy(() -> new NfsExportRecord(VolumeId.of("pvc-a"), "shared", Path.of("/tank/a b"), SERVER, Set.of()))
                .isInstanceOf(InvalidValueException.class);
    }
}
