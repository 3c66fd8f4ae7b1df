package pillar.agent.nfs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import pillar.agent.backend.Captures;
import pillar.agent.backend.ScriptedRunner;
import pillar.api.value.InvalidValueException;
import pillar.api.value.VolumeId;

/**
 * The exportfs adapter: its exact argument lists and deadline, the /etc/exports it makes (docs/nfs.md fact 7),
 * the {@code exportfs -v} listing as captured in the VM (short and wrapped paths), and exportfs -u's prefix match repaired.
 */
class KernelNfsServerTest {
    /** exportfs -v in the VM (target/probe-nfs/vm/console.log, nfs-utils 2.6.2). */
    static final String CAPTURED = """
            /export/v1    \t10.77.2.2(sync,wdelay,hide,no_subtree_check,fsid=101,sec=sys,rw,secure,no_root_squash,no_all_squash)
            /export/v1    \t10.77.1.2(sync,wdelay,hide,no_subtree_check,fsid=101,sec=sys,rw,secure,no_root_squash,no_all_squash)
            /export       \t10.77.0.0/16(sync,wdelay,hide,no_subtree_check,fsid=0,sec=sys,ro,secure,root_squash,no_all_squash)
            """;
    private static final NfsClient A = NfsClient.parse("a", "10.77.1.2");
    private static final NfsFsid FSID = NfsFsid.of(VolumeId.of("pvc-1"));
    private static final String OPTS = "rw,sync,no_subtree_check,no_root_squash,fsid=" + FSID.text();

    @TempDir
    Path etc;

    private KernelNfsServer server(ScriptedRunner runner) {
        return new KernelNfsServer(runner, Duration.ofSeconds(7), etc.resolve("exports"), etc.resolve("etab"), etc.resolve("proc"));
    }

    private static String line(String path, String client, String fsid) {
        return line(path, client, fsid, "rw");
    }

    private static String line(String path, String client, String fsid, String access) {
        return String.format("%-14s", path) + (path.length() > 14 ? "\n\t\t" : "\t") + client
                + "(sync,wdelay,hide,no_subtree_check,fsid=" + fsid + ",sec=sys," + access + ",secure,no_root_squash,no_all_squash)\n";
    }

    @Test
    void aReadOnlyClientIsExportedRoAndTheListingReadsEachEntrysAccess() {
        ScriptedRunner runner = new ScriptedRunner(ScriptedRunner.printing("", ""));

        server(runner).export(Path.of("/tank/nfs/pvc-1"), A, FSID, NfsAccess.READ_ONLY);

        assertThat(runner.lastArgv()).containsExactly("exportfs", "-i", "-o", "ro,sync,no_subtree_check,no_root_squash,fsid=" + FSID.text(),
                "10.77.1.2:/tank/nfs/pvc-1");
        String out = line("/tank/nfs/pvc-1", "10.77.1.2", FSID.text(), "ro") + line("/tank/nfs/pvc-1", "10.77.2.2", FSID.text(), "rw");
        assertThat(ExportfsListing.parse(out)).containsExactly(
                new NfsExport(Path.of("/tank/nfs/pvc-1"), A, FSID.text(), NfsAccess.READ_ONLY),
                new NfsExport(Path.of("/tank/nfs/pvc-1"), NfsClient.parse("b", "10.77.2.2"), FSID.text(), NfsAccess.READ_WRITE));
    }

    @Test
    void aReadOnlyEntryExportfsURemovedByItsPrefixIsExportedAgainReadOnly() {
        NfsFsid other = NfsFsid.of(VolumeId.of("pvc-10"));
        String before = line("/tank/nfs/pvc-1", "10.77.1.2", FSID.text()) + line("/tank/nfs/pvc-10", "10.77.1.2", other.text(), "ro");
        ScriptedRunner runner = new ScriptedRunner(ScriptedRunner.printing(before, ""), ScriptedRunner.printing("", ""),
                ScriptedRunner.printing("", ""), ScriptedRunner.printing("", ""));

        server(runner).unexport(Path.of("/tank/nfs/pvc-1"), A);

        assertThat(runner.lastArgv()).containsExactly("exportfs", "-i", "-o", "ro,sync,no_subtree_check,no_root_squash,fsid=" + other.text(),
                "10.77.1.2:/tank/nfs/pvc-10");
    }

    @Test
    void aSquashedExportGetsRootSquashTheListingReadsItAndAPrefixVictimIsExportedAgainSquashed() {
        ScriptedRunner runner = new ScriptedRunner(ScriptedRunner.printing("", ""));

        server(runner).export(Path.of("/tank/nfs/pvc-1"), A, FSID, NfsAccess.READ_WRITE, NfsSquash.ROOT_SQUASH);

        assertThat(runner.lastArgv()).containsExactly("exportfs", "-i", "-o", "rw,sync,no_subtree_check,root_squash,fsid=" + FSID.text(),
                "10.77.1.2:/tank/nfs/pvc-1");
        NfsFsid other = NfsFsid.of(VolumeId.of("pvc-10"));
        String before = line("/tank/nfs/pvc-1", "10.77.1.2", FSID.text())
                + line("/tank/nfs/pvc-10", "10.77.1.2", other.text(), "rw").replace(",no_root_squash,", ",root_squash,");
        assertThat(ExportfsListing.parse(before)).extracting(NfsExport::squash)
                .containsExactly(NfsSquash.NO_ROOT_SQUASH, NfsSquash.ROOT_SQUASH);
        ScriptedRunner unexporting = new ScriptedRunner(ScriptedRunner.printing(before, ""), ScriptedRunner.printing("", ""),
                ScriptedRunner.printing("", ""), ScriptedRunner.printing("", ""));

        server(unexporting).unexport(Path.of("/tank/nfs/pvc-1"), A);

        assertThat(unexporting.lastArgv()).containsExactly("exportfs", "-i", "-o", "rw,sync,no_subtree_check,root_squash,fsid="
                + other.text(), "10.77.1.2:/tank/nfs/pvc-10");
    }

    @Test
    void theCapturedListingYieldsEachSingleClientEntryAndSkipsTheSubnet() {
        assertThat(ExportfsListing.parse(CAPTURED)).containsExactly(
                new NfsExport(Path.of("/export/v1"), NfsClient.parse("b", "10.77.2.2"), "101"),
                new NfsExport(Path.of("/export/v1"), A, "101"));
        assertThat(ExportfsListing.parse("")).isEmpty();
    }

    /** What an adoption asks: every exported path, also to a subnet, a wildcard or a name (sharenfs's, an operator's). */
    @Test
    void theExportedPathsAreEveryEntrysWhateverItsClientEachOnce() {
        String out = CAPTURED + line("/tank/nfs/shared-by-zfs", "*", "0") + line("/srv/www", "web.example", "0");
        ScriptedRunner runner = new ScriptedRunner(ScriptedRunner.printing(out, ""));

        assertThat(server(runner).exportedPaths()).containsExactly(Path.of("/export/v1"), Path.of("/export"),
                Path.of("/tank/nfs/shared-by-zfs"), Path.of("/srv/www"));
        assertThat(runner.commands()).extracting(c -> c.argv()).containsExactly(List.of("exportfs", "-v"));
    }

    @Test
    void aLongPathWrapsTheClientOntoTheNextLineAndIpv6IsRead() {
        String out = line("/tank/nfs/pvc-1", "10.77.1.2", FSID.text()) + line("/tank/nfs/pvc-1", "fd00:0:0:0:0:0:0:7", FSID.text());

        assertThat(ExportfsListing.parse(out)).containsExactly(new NfsExport(Path.of("/tank/nfs/pvc-1"), A, FSID.text()),
                new NfsExport(Path.of("/tank/nfs/pvc-1"), NfsClient.parse("c", "fd00::7"), FSID.text()));
    }

    @Test
    void aListingOfAnotherShapeIsAnErrorNotAGuess() {
        assertThatThrownBy(() -> ExportfsListing.parse("/export/v1\n")).isInstanceOf(NfsServerException.class).hasMessageContaining("no client");
        assertThatThrownBy(() -> ExportfsListing.parse("10.77.1.2(rw)\n")).isInstanceOf(NfsServerException.class);
        assertThatThrownBy(() -> ExportfsListing.parse("/x 10.77.1.2\n")).isInstanceOf(NfsServerException.class);
    }

    @Test
    void exportRunsExportfsWithTheFixedOptionsAndDeadlineAndMakesEtcExports() {
        ScriptedRunner runner = new ScriptedRunner(ScriptedRunner.printing("", ""), ScriptedRunner.printing("", ""));
        KernelNfsServer server = server(runner);

        server.export(Path.of("/tank/nfs/pvc-1"), A, FSID);
        server.export(Path.of("/tank/nfs/pvc-1"), NfsClient.parse("c", "FD00::7"), FSID);

        assertThat(runner.commands().get(0).argv()).containsExactly("exportfs", "-i", "-o", OPTS, "10.77.1.2:/tank/nfs/pvc-1");
        assertThat(runner.commands().get(0).timeout()).isEqualTo(Duration.ofSeconds(7));
        assertThat(runner.lastArgv()).containsExactly("exportfs", "-i", "-o", OPTS, "[fd00:0:0:0:0:0:0:7]:/tank/nfs/pvc-1");
        assertThat(String.join(" ", runner.lastArgv())).doesNotContain("crossmnt");
        assertThat(etc.resolve("exports")).exists().isEmptyFile();
    }

    @Test
    void anExistingEtcExportsIsLeftAsItIs() throws Exception {
        Files.writeString(etc.resolve("exports"), "/srv 10.0.0.1(ro)\n");

        server(new ScriptedRunner(ScriptedRunner.printing("", ""))).export(Path.of("/tank/nfs/pvc-1"), A, FSID);

        assertThat(etc.resolve("exports")).hasContent("/srv 10.0.0.1(ro)");
    }

    @Test
    void aFailedExportfsIsAnErrorEvenWithStatusOne() {
        ScriptedRunner runner = new ScriptedRunner(new Captures.Capture("exportfs", "", "exportfs: Failed to stat /tank/nfs/pvc-1: No such file or directory\n", 1));

        assertThatThrownBy(() -> server(runner).export(Path.of("/tank/nfs/pvc-1"), A, FSID)).isInstanceOf(NfsServerException.class)
                .hasMessageContaining("exportfs -i -o");
    }

    @Test
    void unexportOfAnEntryThatIsNotListedRunsNoUnexport() {
        ScriptedRunner runner = new ScriptedRunner(ScriptedRunner.printing(CAPTURED, ""));

        server(runner).unexport(Path.of("/export/v2"), A);

        assertThat(runner.commands()).hasSize(1);
        assertThat(runner.lastArgv()).containsExactly("exportfs", "-v");
    }

    @Test
    void unexportRemovesTheEntryAndChecksItIsGone() {
        String after = line("/export/v1", "10.77.2.2", "101");
        ScriptedRunner runner = new ScriptedRunner(ScriptedRunner.printing(CAPTURED, ""), ScriptedRunner.printing("", ""),
                ScriptedRunner.printing(after, ""));

        server(runner).unexport(Path.of("/export/v1"), A);

        assertThat(runner.commands().get(1).argv()).containsExactly("exportfs", "-u", "10.77.1.2:/export/v1");
        assertThat(runner.commands()).hasSize(3);
    }

    /** An nfsd client directory as 6.1 shows it ({@code /proc/fs/nfsd/clients/<id>/}), its ctl an empty file here. */
    private Path nfsdClient(String id, String address) throws Exception {
        Path dir = Files.createDirectories(etc.resolve("proc/fs/nfsd/clients").resolve(id));
        Files.writeString(dir.resolve("info"), "clientid: 0x6e8c2ab7655f3a01\naddress: \"" + address + "\"\nstatus: confirmed\n"
                + "name: \"Linux NFSv4.2 pillar-nfs-x\"\nminor version: 2\n");
        Files.writeString(dir.resolve("ctl"), "");
        return dir.resolve("ctl");
    }

    @Test
    void aClientsLastExportRemovedExpiresItsNfsdStateAndNoOtherClients() throws Exception {
        Path a = nfsdClient("3", "10.77.1.2:876");
        Path b = nfsdClient("4", "10.77.2.2:901");
        Path v6 = nfsdClient("5", "[fd00::2]:702");
        String after = line("/export/v1", "10.77.2.2", "101");
        ScriptedRunner runner = new ScriptedRunner(ScriptedRunner.printing(CAPTURED, ""), ScriptedRunner.printing("", ""),
                ScriptedRunner.printing(after, ""));

        server(runner).unexport(Path.of("/export/v1"), A);

        assertThat(Files.readString(a)).isEqualTo("expire\n");
        assertThat(Files.readString(b)).isEmpty();
        assertThat(Files.readString(v6)).isEmpty();
        assertThat(NfsClientState.ids(etc.resolve("proc"), NfsClient.parse("c", "fd00::2"))).containsExactly(v6.getParent());
    }

    @Test
    void aClientWithAnotherExportKeepsItsNfsdStateAndLosesThePathsWhereNoOtherClientIs() throws Exception {
        Path a = nfsdClient("3", "10.77.1.2:876");
        Path unlock = unlockFilesystem();
        String before = line("/tank/nfs/pvc-1", "10.77.1.2", FSID.text()) + line("/tank/nfs/pvc-2", "10.77.1.2", "x");
        String after = line("/tank/nfs/pvc-2", "10.77.1.2", "x");
        ScriptedRunner runner = new ScriptedRunner(ScriptedRunner.printing(before, ""), ScriptedRunner.printing("", ""),
                ScriptedRunner.printing(after, ""));

        assertThat(server(runner).unexport(Path.of("/tank/nfs/pvc-1"), A)).isEqualTo(StateRelease.DONE);

        assertThat(Files.readString(a)).isEmpty();
        assertThat(Files.readString(unlock)).as("no other client has pvc-1: its state revoked there").isEqualTo("/tank/nfs/pvc-1\n");
    }

    /** nfsd's {@code unlock_filesystem}, an empty file here. */
    private Path unlockFilesystem() throws Exception {
        Path file = Files.createDirectories(etc.resolve("proc/fs/nfsd")).resolve("unlock_filesystem");
        Files.writeString(file, "");
        return file;
    }

    @Test
    void aPathAnotherClientStillHasIsNotRevokedForAClientWithOtherExports() throws Exception {
        Path a = nfsdClient("3", "10.77.1.2:876");
        Path unlock = unlockFilesystem();
        String b = line("/tank/nfs/pvc-1", "10.77.2.2", FSID.text());
        String before = line("/tank/nfs/pvc-1", "10.77.1.2", FSID.text()) + b + line("/tank/nfs/pvc-2", "10.77.1.2", "x");
        String after = b + line("/tank/nfs/pvc-2", "10.77.1.2", "x");
        ScriptedRunner runner = new ScriptedRunner(ScriptedRunner.printing(before, ""), ScriptedRunner.printing("", ""),
                ScriptedRunner.printing(after, ""));

        assertThat(server(runner).unexport(Path.of("/tank/nfs/pvc-1"), A)).isEqualTo(StateRelease.DONE);

        assertThat(Files.readString(a)).isEmpty();
        assertThat(Files.readString(unlock)).as("a revocation would take 10.77.2.2's state too").isEmpty();
    }

    @Test
    void aReleaseRetriedAfterExportfsUAloneExpiresTheClientWhoseEntryIsGone() throws Exception {
        Path a = nfsdClient("3", "10.77.1.2:876");
        Path b = nfsdClient("4", "10.77.2.2:901");
        ScriptedRunner runner = new ScriptedRunner(ScriptedRunner.printing(line("/export/v1", "10.77.2.2", "101"), ""));

        assertThat(server(runner).releaseState(Path.of("/export/v1"), A)).isEqualTo(StateRelease.DONE);

        assertThat(runner.commands()).singleElement().satisfies(c -> assertThat(c.argv()).containsExactly("exportfs", "-v"));
        assertThat(Files.readString(a)).isEqualTo("expire\n");
        assertThat(Files.readString(b)).isEmpty();
    }

    @Test
    void aReleaseOfAClientStillListedWritesNothing() throws Exception {
        Path a = nfsdClient("3", "10.77.1.2:876");
        Path unlock = unlockFilesystem();

        assertThat(server(new ScriptedRunner(ScriptedRunner.printing(CAPTURED, ""))).releaseState(Path.of("/export/v1"), A))
                .isEqualTo(StateRelease.DONE);

        assertThat(Files.readString(a)).isEmpty();
        assertThat(Files.readString(unlock)).isEmpty();
    }

    @Test
    void anEntryExportfsUStillListsIsAnError() {
        ScriptedRunner runner = new ScriptedRunner(ScriptedRunner.printing(CAPTURED, ""), ScriptedRunner.printing("", ""),
                ScriptedRunner.printing(CAPTURED, ""));

        assertThatThrownBy(() -> server(runner).unexport(Path.of("/export/v1"), A)).isInstanceOf(NfsServerException.class)
                .hasMessageContaining("still listed");
    }

    @Test
    void theSameClientsEntryOfAPathWithThisPrefixIsExportedAgainAfterExportfsU() {
        NfsFsid other = NfsFsid.of(VolumeId.of("pvc-10"));
        String before = line("/tank/nfs/pvc-1", "10.77.1.2", FSID.text()) + line("/tank/nfs/pvc-10", "10.77.1.2", other.text())
                + line("/tank/nfs/pvc-10", "10.77.2.2", other.text());
        String after = line("/tank/nfs/pvc-10", "10.77.2.2", other.text());
        ScriptedRunner runner = new ScriptedRunner(ScriptedRunner.printing(before, ""), ScriptedRunner.printing("", ""),
                ScriptedRunner.printing(after, ""), ScriptedRunner.printing("", ""));

        server(runner).unexport(Path.of("/tank/nfs/pvc-1"), A);

        assertThat(runner.commands()).hasSize(4);
        assertThat(runner.lastArgv()).containsExactly("exportfs", "-i", "-o", "rw,sync,no_subtree_check,no_root_squash,fsid=" + other.text(),
                "10.77.1.2:/tank/nfs/pvc-10");
    }

    @Test
    void aBadPathRunsNothing() {
        ScriptedRunner runner = new ScriptedRunner();

        assertThatThrownBy(() -> server(runner).export(Path.of("/tank/nfs/a b"), A, FSID)).isInstanceOf(InvalidValueException.class);
        assertThatThrownBy(() -> server(runner).unexport(Path.of("tank"), A)).isInstanceOf(InvalidValueException.class);
        assertThat(runner.commands()).isEmpty();
        assertThat(etc.resolve("exports")).doesNotExist();
    }

    @Test
    void clientsAreSingleAddressLiteralsOnly() {
        assertThat(NfsClient.parse("c", "10.0.0.1").text()).isEqualTo("10.0.0.1");
        assertThat(NfsClient.parse("c", "fd00::1")).isEqualTo(NfsClient.parse("c", "FD00:0::1"));
        for (String bad : List.of("", "10.0.0.0/8", "*", "node-1", "10.0.0", "10.0.0.256", "010.0.0.1", "fe80::1%eth0", "::ffff:10.0.0.1",
                "*.example.com", "10.0.0.1 ", "@netgroup", "gss/krb5")) {
            assertThatThrownBy(() -> NfsClient.parse("client_address", bad)).as(bad).isInstanceOf(InvalidValueException.class)
                    .hasMessageContaining("client_address");
        }
    }

    @Test
    void theFsidIsStablePerVolumeAndDiffersBetweenVolumes() {
        assertThat(NfsFsid.of(VolumeId.of("pvc-1"))).isEqualTo(FSID);
        assertThat(NfsFsid.of(VolumeId.of("pvc-2"))).isNotEqualTo(FSID);
        assertThat(FSID.text()).matches("[0-9a-f]{8}-[0-9a-f]{4}-3[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}");
    }
}
