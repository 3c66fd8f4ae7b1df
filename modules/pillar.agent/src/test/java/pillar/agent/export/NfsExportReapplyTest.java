package pillar.agent.export;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import pillar.agent.backend.zfs.FakeZfs;
import pillar.agent.backend.VolumeBackend;
import pillar.agent.backend.zfs.ZfsDatasetBackend;
import pillar.agent.config.BackendConfig;
import pillar.agent.nfs.FakeNfsServer;
import pillar.agent.nfs.NfsAccess;
import pillar.agent.nfs.NfsClient;
import pillar.agent.nfs.NfsExport;
import pillar.agent.nfs.NfsFsid;
import pillar.agent.nfs.NfsServerContract;
import pillar.agent.state.InstallationId;
import pillar.api.agent.v1.BackendKind;
import pillar.api.value.ByteSize;
import pillar.api.value.VolumeId;

/**
 * Start-up re-application of NFS records on the fake nfsd and datasets on the fake zfs: a reboot's empty
 * table is filled again and old mounts work (fact 3), drift is removed, a moved mountpoint is followed,
 * orphans on our datasets' paths go, and one record that cannot apply leaves the others.
 */
class NfsExportReapplyTest {
    private static final NfsClient SERVER = NfsClient.parse("server", "10.0.0.5");
    private static final NfsClient A = NfsClient.parse("a", "10.77.1.2");
    private static final NfsClient B = NfsClient.parse("b", "10.77.2.2");
    private static final VolumeId PVC1 = VolumeId.of("pvc-1");
    private static final VolumeId PVC2 = VolumeId.of("pvc-2");

    @TempDir
    Path dir;

    private final FakeNfsServer nfs = new FakeNfsServer();
    private final NfsExporter exporter = new NfsExporter(nfs);
    private ExportStore store;
    private FakeZfs zfs;
    private Map<String, VolumeBackend> backends;

    @BeforeEach
    void datasets() {
        store = new ExportStore(dir.resolve("state"));
        zfs = new FakeZfs("tank", ByteSize.ofGiB(4).bytes(), dir.resolve("dev"), dir.resolve("sys"), "/lib/udev/zvol_id",
                FakeZfs.Devices.UDEV).withFilesystem("tank/nfs");
        VolumeBackend shared = new ZfsDatasetBackend(new BackendConfig("shared", BackendKind.BACKEND_KIND_ZFS_DATASET, "tank", "nfs"),
                zfs, Duration.ofSeconds(5), Duration.ofMillis(100), InstallationId.EMBEDDED);
        backends = Map.of("shared", shared);
        shared.create(PVC1, ByteSize.ofMiB(8), Map.of());
        shared.create(PVC2, ByteSize.ofMiB(8), Map.of());
        nfs.directory(Path.of("/tank/nfs/pvc-1"));
        nfs.directory(Path.of("/tank/nfs/pvc-2"));
    }

    private NfsExportRecord record(VolumeId id, Set<NfsClient> clients) {
        return new NfsExportRecord(id, "shared", Path.of("/tank/nfs/" + id.value()), SERVER, clients);
    }

    private List<String> reapply() {
        return NfsExportReapply.run(store, exporter, backends, Set.of("shared"));
    }

    @Test
    void aRebootsEmptyTableIsFilledAgainAndAnOldMountWorks() {
        NfsExportRecord one = record(PVC1, Set.of(A, B));
        store.write(one);
        exporter.apply(one);
        NfsServerContract.Mount a = nfs.mount(A, one.path());
        a.write("f", "kept");
        nfs.wipe();

        assertThat(reapply()).isEmpty();

        assertThat(nfs.exports()).containsExactlyInAnyOrder(new NfsExport(one.path(), A, one.fsid().text()),
                new NfsExport(one.path(), B, one.fsid().text()));
        assertThat(a.read("f")).isEqualTo("kept");
        assertThat(exporter.drift(one)).isEmpty();
    }

    @Test
    void aReadOnlyClientIsReappliedReadOnlyAndAReadWriteEntryForItIsDriftMadeRight() {
        NfsExportRecord one = new NfsExportRecord(PVC1, "shared", Path.of("/tank/nfs/pvc-1"), SERVER, Set.of(A, B), Set.of(B));
        store.write(one);
        exporter.apply(one);
        NfsServerContract.Mount b = nfs.mount(B, one.path());
        nfs.wipe();
        nfs.export(one.path(), B, one.fsid(), NfsAccess.READ_WRITE);

        assertThat(exporter.drift(one)).containsExactly("client 10.77.1.2 is not exported /tank/nfs/pvc-1",
                "client 10.77.2.2 has /tank/nfs/pvc-1 rw, not ro");
        assertThat(reapply()).isEmpty();

        assertThat(nfs.exports()).containsExactlyInAnyOrder(new NfsExport(one.path(), A, one.fsid().text(), NfsAccess.READ_WRITE),
                new NfsExport(one.path(), B, one.fsid().text(), NfsAccess.READ_ONLY));
        assertThatThrownBy(() -> b.write("f", "must-not-land")).isInstanceOfSatisfying(NfsServerContract.AccessException.class,
                e -> assertThat(e.errno).isEqualTo("EROFS"));
        nfs.mount(A, one.path()).write("f", "by-a");
        assertThat(b.read("f")).isEqualTo("by-a");
        assertThat(exporter.drift(one)).isEmpty();
    }

    @Test
    void aFencedClientWhoseReleaseTheAgentDiedBeforeIsReleasedAtStartUpAndItsNoteDropped() {
        NfsExportRecord one = record(PVC1, Set.of(A, B));
        exporter.apply(one);
        nfs.mount(A, one.path()).write("f", "by-a");
        nfs.mount(B, one.path()).write("g", "by-b");
        // the deny as the agent makes it, dead after exportfs -u
        NfsExportRecord noted = one.withFencing(B);
        store.write(noted);
        nfs.removeEntryOnly(one.path(), B);
        nfs.wipe();

        assertThat(reapply()).isEmpty();

        assertThat(nfs.holdsState(B, one.path())).as("B's state, released at start-up").isFalse();
        assertThat(nfs.holdsState(A, one.path())).isTrue();
        assertThat(store.read(PVC1, NfsExportRecord.class)).contains(record(PVC1, Set.of(A)));
        assertThat(nfs.exports()).containsExactly(new NfsExport(one.path(), A, one.fsid().text()));
    }

    @Test
    void aReleaseStillStuckAtStartUpStaysNoted() {
        NfsExportRecord one = record(PVC1, Set.of(A, B));
        exporter.apply(one);
        nfs.mount(B, one.path());
        NfsExportRecord noted = one.withFencing(B);
        store.write(noted);
        nfs.removeEntryOnly(one.path(), B);
        nfs.hangReleases(true);

        assertThat(reapply()).isEmpty();

        assertThat(store.read(PVC1, NfsExportRecord.class)).contains(noted);
        assertThat(nfs.holdsState(B, one.path())).isTrue();
        nfs.hangReleases(false);
        assertThat(reapply()).isEmpty();
        assertThat(store.read(PVC1, NfsExportRecord.class)).contains(record(PVC1, Set.of(A)));
        assertThat(nfs.holdsState(B, one.path())).isFalse();
    }

    @Test
    void driftIsMeasuredAndRemovedAnUnrecordedClientLosesAccess() {
        NfsExportRecord one = record(PVC1, Set.of(A));
        store.write(one);
        nfs.export(one.path(), B, one.fsid());
        NfsServerContract.Mount b = nfs.mount(B, one.path());

        assertThat(exporter.drift(one)).containsExactly("client 10.77.1.2 is not exported /tank/nfs/pvc-1",
                "client 10.77.2.2 is exported /tank/nfs/pvc-1 but not allowed");
        assertThat(reapply()).isEmpty();

        assertThat(nfs.exports()).containsExactly(new NfsExport(one.path(), A, one.fsid().text()));
        assertThatThrownBy(() -> b.read("f")).isInstanceOf(NfsServerContract.AccessException.class);
        assertThat(exporter.drift(one)).isEmpty();
    }

    @Test
    void anEntryWithAnotherFsidIsDriftAndIsMadeRight() {
        NfsExportRecord one = record(PVC1, Set.of(A));
        store.write(one);
        nfs.export(one.path(), A, NfsFsid.of(VolumeId.of("elsewhere")));

        assertThat(exporter.drift(one)).singleElement().asString().contains("with fsid");
        reapply();

        assertThat(nfs.exports()).containsExactly(new NfsExport(one.path(), A, one.fsid().text()));
    }

    @Test
    void aMovedMountpointIsFollowedAndTheRecordRewritten() {
        NfsExportRecord one = record(PVC1, Set.of(A));
        store.write(one);
        exporter.apply(one);
        zfs.withProperty("tank/nfs", "mountpoint", "/srv/nfs");
        Path moved = nfs.directory(Path.of("/srv/nfs/pvc-1"));

        assertThat(reapply()).isEmpty();

        assertThat(store.read(PVC1, NfsExportRecord.class).orElseThrow().path()).isEqualTo(moved);
        assertThat(nfs.exports()).containsExactly(new NfsExport(moved, A, one.fsid().text()));
    }

    @Test
    void anEntryOnOurDatasetWithoutARecordIsRemovedOthersAreLeft() {
        nfs.export(Path.of("/tank/nfs/pvc-2"), A, NfsFsid.of(PVC2));
        Path foreign = nfs.directory(Path.of("/srv/other"));
        nfs.export(foreign, A, NfsFsid.of(VolumeId.of("admin")));

        assertThat(reapply()).isEmpty();

        assertThat(nfs.exports()).containsExactly(new NfsExport(foreign, A, NfsFsid.of(VolumeId.of("admin")).text()));
    }

    @Test
    void aRecordThatCannotApplyIsReportedAndTheOthersStillGoThrough() {
        store.write(record(VolumeId.of("pvc-gone"), Set.of(A)));
        NfsExportRecord two = record(PVC2, Set.of(B));
        store.write(two);

        List<String> failures = reapply();

        assertThat(failures).singleElement().asString().startsWith("pvc-gone: the dataset does not exist");
        assertThat(nfs.exports()).containsExactly(new NfsExport(two.path(), B, two.fsid().text()));
        assertThat(store.read(VolumeId.of("pvc-gone"), NfsExportRecord.class)).isPresent();
    }

    @Test
    void withoutRecordsOrFilesystemBackendsTheServerIsNeverAsked() {
        NfsExporter refusing = new NfsExporter(new pillar.agent.nfs.NfsServer() {
            @Override
            public void export(Path path, NfsClient client, NfsFsid fsid, pillar.agent.nfs.NfsAccess access,
                               pillar.agent.nfs.NfsSquash squash, pillar.agent.nfs.NfsTransport transport) {
                throw new AssertionError("export");
            }

            @Override
            public pillar.agent.nfs.StateRelease unexport(Path path, NfsClient client) {
                throw new AssertionError("unexport");
            }

            @Override
            public pillar.agent.nfs.StateRelease releaseState(Path path, NfsClient client) {
                throw new AssertionError("releaseState");
            }

            @Override
            public List<NfsExport> exports() {
                throw new AssertionError("no exportfs on a host without NFS");
            }
        });

        assertThat(NfsExportReapply.run(store, refusing, backends, Set.of())).isEmpty();
    }
}
