package pillar.node.stage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import pillar.api.csi.v1.VolumeCapability.AccessMode.Mode;
import pillar.api.value.InvalidValueException;
import pillar.api.value.Nqn;
import pillar.api.value.VolumeId;
import pillar.node.fs.FsType;
import pillar.node.mount.NfsExport;
import pillar.node.nvme.Controller;
import pillar.node.nvme.FabricsTarget;

/** The stage record: its text form round-trips, its parser is strict, its store is atomic and per volume. */
class StageRecordTest {
    static final VolumeId VOLUME = VolumeId.of("pvc-1a2b");
    static final FabricsTarget TARGET = new FabricsTarget(Nqn.of("nqn.2024-01.io.pillar-csi:pvc-1a2b"), "tcp",
            "10.0.0.5", 4420, -1, 5, 2);
    static final Path STAGING = Path.of("/var/lib/kubelet/plugins/kubernetes.io/csi/pillar.csi.io/ab/globalmount");

    @TempDir
    Path dir;

    static StageRecord staged() {
        return StageRecord.attaching(VOLUME, STAGING, Optional.of(FsType.XFS), List.of("noatime", "nouuid"),
                        Mode.SINGLE_NODE_MULTI_WRITER, TARGET)
                .staged(new Controller(3), "nvme1n1")
                .withPublication(new Publication(Path.of("/var/lib/kubelet/pods/u1/volumes/kubernetes.io~csi/pv/mount"),
                        true, Mode.MULTI_NODE_READER_ONLY, List.of("noatime")))
                .withPublication(new Publication(Path.of("/var/lib/kubelet/pods/u2/mount"), false,
                        Mode.SINGLE_NODE_MULTI_WRITER, List.of()));
    }

    @Test
    void roundTripsThroughItsTextForm() {
        StageRecord record = staged();
        String text = StageRecordFormat.format(record);
        assertThat(text).startsWith("pillar-csi-stage-record 1\nvolume=pvc-1a2b\nphase=staged\n")
                .contains("\nfs-type=xfs\n", "\nmount-flags=noatime,nouuid\n", "\ncontroller=nvme3\n",
                        "\npublication=ro MULTI_NODE_READER_ONLY noatime /var/lib/kubelet/pods/u1/",
                        "\npublication=rw SINGLE_NODE_MULTI_WRITER - /var/lib/kubelet/pods/u2/mount\n");
        assertThat(StageRecordFormat.parse(text, "f")).isEqualTo(record);

        StageRecord block = StageRecord.attaching(VOLUME, STAGING, Optional.empty(), List.of(),
                Mode.SINGLE_NODE_SINGLE_WRITER, TARGET);
        assertThat(StageRecordFormat.format(block)).contains("\nfs-type=block\n", "\ncontroller=\n", "\ndevice=\n");
        assertThat(StageRecordFormat.parse(StageRecordFormat.format(block), "f")).isEqualTo(block);
    }

    @Test
    void aPublicationsOwnHostNqnRoundTripsAndARecordWithoutOneReadsAsTheNodes() {
        Nqn own = pillar.api.context.PublicationHost.nqn("worker-1", "pvc-1a2b");
        FabricsTarget target = new FabricsTarget(TARGET.nqn(), "tcp", "10.0.0.5", 4420, -1, 5, 2, Optional.of(own));
        StageRecord record = StageRecord.attaching(VOLUME, STAGING, Optional.empty(), List.of(), Mode.SINGLE_NODE_WRITER, target);
        String text = StageRecordFormat.format(record);
        assertThat(text).contains("\nhost-nqn=" + own.value() + "\n");
        assertThat(StageRecordFormat.parse(text, "f")).isEqualTo(record);
        assertThat(StageRecordFormat.parse(text, "f").target().hostOr(Nqn.of("nqn.2024-01.io.example:node"))).isEqualTo(own);
        assertThat(StageRecordFormat.format(staged())).doesNotContain("host-nqn");
        assertThat(StageRecordFormat.parse(StageRecordFormat.format(staged()), "f").target().host()).isEmpty();
    }

    @Test
    void publicationsAreReplacedAndRemovedByTarget() {
        StageRecord record = staged();
        Path u2 = Path.of("/var/lib/kubelet/pods/u2/mount");
        StageRecord replaced = record.withPublication(new Publication(u2, true, Mode.SINGLE_NODE_MULTI_WRITER, List.of()));
        assertThat(replaced.publications()).hasSize(2);
        assertThat(replaced.publicationAt(u2)).get().extracting(Publication::readOnly).isEqualTo(true);
        assertThat(replaced.withoutPublication(u2).publications()).hasSize(1);
    }

    @Test
    void theParserIsStrict() {
        String good = StageRecordFormat.format(staged());
        String[][] broken = {
            {"", "not a stage record"},
            {good.replace("pillar-csi-stage-record 1", "pillar-csi-stage-record 2"), "not a stage record"},
            {good.substring(0, good.length() - 1), "complete lines"},
            {good.replace("phase=staged\n", ""), "'phase' is missing"},
            {good.replace("phase=staged\n", "phase=staged\nphase=staged\n"), "appears twice"},
            {good.replace("phase=staged\n", "phase=staged\ncolour=blue\n"), "unknown key 'colour'"},
            {good.replace("phase=staged\n", "phase=staged\nno equals sign\n"), "not key=value"},
            {good.replace("volume=pvc-1a2b", "volume=../../etc"), "volume_id"},
            {good.replace("phase=staged", "phase=done"), "phase must be"},
            {good.replace("fs-type=xfs", "fs-type=btrfs"), "fs_type"},
            {good.replace("mount-flags=noatime,nouuid", "mount-flags=errors=panic"), "mount_flags"},
            {good.replace("access-mode=SINGLE_NODE_MULTI_WRITER", "access-mode=EVERYONE"), "access-mode"},
            {good.replace("traddr=10.0.0.5", "traddr=evil.example"), "traddr"},
            {good.replace("trsvcid=4420", "trsvcid=x"), "trsvcid"},
            {good.replace("controller=nvme3", "controller=sda"), "controller"},
            {good.replace("device=nvme1n1", "device=nvme1c3n1"), "device"},
            {good.replace("device=nvme1n1", "device="), "a staged volume has a controller and a device"},
            {good.replace("staging=/var", "staging=var"), "staging path"},
            {good.replace("staging=/var/lib", "staging=/var/../lib"), "staging path"},
            {good.replace("publication=ro ", "publication=maybe "), "publication"},
            {good.replace("/var/lib/kubelet/pods/u2/mount", "relative/mount"), "publication target"},
        };
        for (String[] c : broken) {
            assertThatThrownBy(() -> StageRecordFormat.parse(c[0], "/state/x.stage")).as(c[1])
                    .isInstanceOf(StageRecordException.class)
                    .hasMessageStartingWith("/state/x.stage").hasMessageContaining(c[1]);
        }
    }

    @Test
    void theStoreKeepsOneFilePerVolumeAndWritesAtomically() throws Exception {
        Files.writeString(dir.resolve(".tmp-pvc-x.stage-123"), "torn write of a crashed run");
        StageRecords store = new StageRecords(dir);
        assertThat(dir.resolve(".tmp-pvc-x.stage-123")).doesNotExist();
        assertThat(store.read(VOLUME)).isEmpty();

        store.write(staged());
        assertThat(dir.resolve("pvc-1a2b.stage")).exists();
        assertThat(store.read(VOLUME)).contains(staged());
        assertThat(Files.list(dir)).hasSize(1);

        StageRecord other = StageRecord.attaching(VolumeId.of("pvc-2"), STAGING.resolveSibling("other"),
                Optional.empty(), List.of(), Mode.SINGLE_NODE_WRITER, TARGET);
        store.write(other);
        Files.writeString(dir.resolve("pvc-3.stage"), "garbage\n");
        Files.writeString(dir.resolve("README"), "not a record");
        StageRecords.Scan scan = store.scan();
        assertThat(scan.records()).extracting(StageRecord::volume).containsExactly(VOLUME, VolumeId.of("pvc-2"));
        assertThat(scan.unreadable()).singleElement().asString().contains("pvc-3.stage");

        store.delete(VOLUME);
        store.delete(VOLUME);
        assertThat(store.read(VOLUME)).isEmpty();
    }

    @Test
    void aRecordUnderAnotherVolumesNameIsRefused() throws Exception {
        StageRecords store = new StageRecords(dir);
        Files.writeString(dir.resolve("pvc-9.stage"), StageRecordFormat.format(staged()));
        assertThatThrownBy(() -> store.read(VolumeId.of("pvc-9"))).isInstanceOf(StageRecordException.class)
                .hasMessageContaining("another volume");
    }

    @Test
    void anNfsRecordRoundTripsWithItsExportAndNoNvmeKeys() {
        NfsExport export = new NfsExport("fd00::1", "/tank/pillar/pvc-1a2b", "fd00::2");
        StageRecord record = StageRecord.mountingNfs(VOLUME, STAGING, List.of("noatime"), Mode.MULTI_NODE_MULTI_WRITER,
                export).stagedNfs().withPublication(new Publication(Path.of("/var/lib/kubelet/pods/u1/mount"), true,
                Mode.MULTI_NODE_MULTI_WRITER, List.of("noatime")));
        String text = StageRecordFormat.format(record);
        assertThat(text).contains("\nphase=staged\n", "\nfs-type=nfs4\n", "\nnfs-server=fd00::1\n",
                "\nnfs-export=/tank/pillar/pvc-1a2b\n", "\nnfs-client=fd00::2\n").doesNotContain("nqn=", "device=");
        StageRecord back = StageRecordFormat.parse(text, "f");
        assertThat(back).isEqualTo(record);
        assertThat(back.block()).isFalse();
        assertThatThrownBy(back::target).isInstanceOf(IllegalStateException.class);

        // strict as the NVMe-oF form: a missing NFS key, an NVMe key in an NFS record, a bad value
        assertThatThrownBy(() -> StageRecordFormat.parse(text.replace("nfs-client=fd00::2\n", ""), "f"))
                .hasMessageContaining("nfs-client");
        assertThatThrownBy(() -> StageRecordFormat.parse(text + "device=nvme1n1\n", "f"))
                .hasMessageContaining("device");
        assertThatThrownBy(() -> StageRecordFormat.parse(text.replace("/tank/pillar/pvc-1a2b", "/tank/../x"), "f"))
                .isInstanceOf(StageRecordException.class);
        assertThatThrownBy(() -> StageRecordFormat.parse(text.replace("mount-flags=noatime", "mount-flags=soft"), "f"))
                .isInstanceOf(StageRecordException.class);
        // and an NVMe-oF record must not carry an NFS key
        assertThatThrownBy(() -> StageRecordFormat.parse(StageRecordFormat.format(staged()) + "nfs-server=10.0.0.1\n", "f"))
                .hasMessageContaining("nfs-server");
    }

    @Test
    void anNfsRecordOverTlsKeepsItsTlsLineAndAPlaintextOneHasNone() {
        NfsExport export = new NfsExport("10.0.0.5", "/tank/pillar/pvc-1a2b", "10.0.0.7", true);
        StageRecord record = StageRecord.mountingNfs(VOLUME, STAGING, List.of(), Mode.MULTI_NODE_MULTI_WRITER, export).stagedNfs();
        String text = StageRecordFormat.format(record);

        assertThat(text).contains("\nnfs-client=10.0.0.7\ntls=tls1.3\n");
        assertThat(StageRecordFormat.parse(text, "f")).isEqualTo(record);
        assertThat(StageRecordFormat.parse(text.replace("tls=tls1.3\n", ""), "f").nfs()).hasValueSatisfying(e -> assertThat(e.tls()).isFalse());
        assertThatThrownBy(() -> StageRecordFormat.parse(text.replace("tls=tls1.3", "tls=tls1.2"), "f"))
                .isInstanceOf(StageRecordException.class).hasMessageContaining("tls1.3");
    }

    @Test
    void aRecordHasEitherATargetOrAnExport() {
        NfsExport export = new NfsExport("10.0.0.1", "/tank/v", "10.0.0.2");
        assertThatThrownBy(() -> new StageRecord(VOLUME, Phase.ATTACHING, STAGING, Optional.empty(), List.of(),
                Mode.SINGLE_NODE_WRITER, Optional.of(TARGET), Optional.of(export), Optional.empty(), Optional.empty(),
                List.of())).isInstanceOf(InvalidValueException.class);
        assertThatThrownBy(() -> new StageRecord(VOLUME, Phase.ATTACHING, STAGING, Optional.of(FsType.EXT4), List.of(),
                Mode.SINGLE_NODE_WRITER, Optional.empty(), Optional.of(export), Optional.empty(), Optional.empty(),
                List.of())).isInstanceOf(InvalidValueException.class);
    }
}
