package pillar.agent.nfs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import pillar.agent.backend.Captures;
import pillar.agent.backend.ScriptedRunner;
import pillar.api.value.VolumeId;

/**
 * RPC-with-TLS through exportfs: the option an entry gets, the listing of nfs-utils 2.8.3 as captured in the 6.12
 * VM, and how the server tells whether the kernel and the tools can require it (answers captured in the VM from
 * Debian 12's exportfs 2.6.2 and Debian 13's 2.8.3), asked once and before any export.
 */
class KernelNfsServerTlsTest {
    /** exportfs -v of nfs-utils 2.8.3 in the 6.12 VM: one entry requiring TLS, one admitting any transport. */
    static final String CAPTURED = """
            /pillar-tls/plain
            \t\t127.0.0.1(sync,wdelay,hide,no_subtree_check,fsid=22222222-1111-1111-1111-111111111111,sec=sys,rw,secure,no_root_squash,no_all_squash)
            /pillar-tls/tls
            \t\t127.0.0.1(sync,wdelay,hide,no_subtree_check,fsid=11111111-1111-1111-1111-111111111111,sec=sys,rw,secure,no_root_squash,no_all_squash,xprtsec=tls:mtls)
            /pillar-tls/mtls
            \t\t127.0.0.1(sync,wdelay,hide,no_subtree_check,fsid=33333333-1111-1111-1111-111111111111,sec=sys,rw,secure,no_root_squash,no_all_squash,xprtsec=mtls)
            """;
    /** Debian 12's exportfs (nfs-utils 2.6.2) asked for the probe path with xprtsec, in the VM. */
    static final String OLD_EXPORTFS = "exportfs: command line:0: unknown keyword \"xprtsec=tls\"\n\n"
            + "exportfs: can't lock /var/lib/nfs/etab for writing\n";
    /** Debian 13's exportfs (nfs-utils 2.8.3) asked the same. */
    static final String NEW_EXPORTFS = "exportfs: Failed to stat /proc/pillar-csi-xprtsec-probe: No such file or directory\n";

    private static final NfsClient A = NfsClient.parse("a", "10.77.1.2");
    private static final NfsFsid FSID = NfsFsid.of(VolumeId.of("pvc-1"));
    private static final Path PATH = Path.of("/tank/nfs/pvc-1");

    @TempDir
    Path etc;

    private KernelNfsServer server(ScriptedRunner runner, String release) throws IOException {
        Files.createDirectories(etc.resolve("proc/sys/kernel"));
        Files.writeString(etc.resolve("proc/sys/kernel/osrelease"), release + "\n");
        return new KernelNfsServer(runner, Duration.ofSeconds(7), etc.resolve("exports"), etc.resolve("lib/nfs/etab"), etc.resolve("proc"));
    }

    private static Captures.Capture failing(String stderr) {
        return new Captures.Capture("exportfs", "", stderr, 1);
    }

    @Test
    void aTlsEntryIsExportedWithTlsAndMtlsAfterOneProbeAndTheListingReadsEachTransport() throws IOException {
        ScriptedRunner runner = new ScriptedRunner(failing(NEW_EXPORTFS), ScriptedRunner.printing("", ""), ScriptedRunner.printing("", ""));
        KernelNfsServer server = server(runner, "6.12.118+deb12-amd64");

        server.export(PATH, A, FSID, NfsAccess.READ_WRITE, NfsSquash.ROOT_SQUASH, NfsTransport.TLS);
        server.export(PATH, A, FSID, NfsAccess.READ_ONLY, NfsSquash.NO_ROOT_SQUASH, NfsTransport.TLS);

        assertThat(runner.commands()).extracting(c -> c.argv()).containsExactly(
                List.of("exportfs", "-i", "-o", "rw,sync,xprtsec=tls", "127.0.0.1:" + NfsTlsSupport.PROBE_PATH),
                List.of("exportfs", "-i", "-o", "rw,sync,no_subtree_check,root_squash,fsid=" + FSID.text() + ",xprtsec=tls:mtls",
                        "10.77.1.2:" + PATH),
                List.of("exportfs", "-i", "-o", "ro,sync,no_subtree_check,no_root_squash,fsid=" + FSID.text() + ",xprtsec=tls:mtls",
                        "10.77.1.2:" + PATH));
        assertThat(etc.resolve("lib/nfs/etab")).as("nfs-utils 2.8 exits 1 without it").exists().isEmptyFile();
        assertThat(ExportfsListing.parse(CAPTURED)).extracting(NfsExport::transport)
                .containsExactly(NfsTransport.ANY, NfsTransport.TLS, NfsTransport.OTHER);
    }

    @Test
    void anEntryAdmittingAnyTransportNeverAsksAboutTls() throws IOException {
        ScriptedRunner runner = new ScriptedRunner(ScriptedRunner.printing("", ""));

        server(runner, "6.1.0-57-amd64").export(PATH, A, FSID);

        assertThat(runner.commands()).extracting(c -> c.argv()).containsExactly(List.of("exportfs", "-i", "-o",
                "rw,sync,no_subtree_check,no_root_squash,fsid=" + FSID.text(), "10.77.1.2:" + PATH));
    }

    /** 6.1's nfsd ignores an xprtsec it does not know and admits plaintext: refused before exportfs is asked anything. */
    @Test
    void aKernelBefore64IsRefusedWithoutRunningAnything() throws IOException {
        ScriptedRunner runner = new ScriptedRunner();
        KernelNfsServer server = server(runner, "6.1.0-57-amd64");

        assertThat(server.tlsProblem()).hasValueSatisfying(p -> assertThat(p).contains("6.1.0-57-amd64").contains("6.4"));
        assertThatThrownBy(() -> server.export(PATH, A, FSID, NfsAccess.READ_WRITE, NfsSquash.NO_ROOT_SQUASH, NfsTransport.TLS))
                .isInstanceOf(NfsTlsUnsupportedException.class).hasMessageContaining(PATH.toString()).hasMessageContaining("6.4");
        assertThat(runner.commands()).isEmpty();
    }

    @Test
    void anExportfsWithoutXprtsecIsRefusedAndOnlyTheProbeRan() throws IOException {
        ScriptedRunner runner = new ScriptedRunner(failing(OLD_EXPORTFS));
        KernelNfsServer server = server(runner, "6.12.118+deb12-amd64");

        assertThatThrownBy(() -> server.export(PATH, A, FSID, NfsAccess.READ_WRITE, NfsSquash.NO_ROOT_SQUASH, NfsTransport.TLS))
                .isInstanceOf(NfsTlsUnsupportedException.class).hasMessageContaining("does not know the xprtsec option");
        assertThat(server.tlsProblem()).as("asked once").isPresent();
        assertThat(runner.commands()).singleElement().extracting(c -> c.argv().get(4))
                .isEqualTo("127.0.0.1:" + NfsTlsSupport.PROBE_PATH);
    }

    /** "Cannot tell" is no answer: the next call asks again, and a settled answer is kept. */
    @Test
    void anAnswerOfAnotherShapeIsAProblemNotAGuessAndIsAskedAgain() throws IOException {
        ScriptedRunner runner = new ScriptedRunner(failing("exportfs: can't lock /var/lib/nfs/etab for writing\n"),
                failing(NEW_EXPORTFS));
        KernelNfsServer server = server(runner, "6.12.1");

        assertThat(server.tlsProblem()).hasValueSatisfying(p -> assertThat(p).startsWith("cannot tell whether exportfs knows xprtsec"));
        assertThat(server.tlsProblem()).as("asked again, and now it can").isEmpty();
        assertThat(server.tlsProblem()).as("kept").isEmpty();
        assertThat(runner.commands()).hasSize(2);
        assertThat(server(new ScriptedRunner(ScriptedRunner.printing("", "")), "7.0.0").tlsProblem())
                .hasValueSatisfying(p -> assertThat(p).contains("which cannot exist"));
        assertThat(NfsTlsSupport.kernelProblem(etc.resolve("nowhere"))).hasValueSatisfying(p -> assertThat(p).contains("unreadable"));
    }

    @Test
    void anotherToolsXprtsecIsNeverWritten() {
        assertThatThrownBy(NfsTransport.OTHER::option).isInstanceOf(IllegalStateException.class);
        assertThat(NfsTransport.ofListed("mtls:tls")).isEqualTo(NfsTransport.TLS);
        assertThat(NfsTransport.ofListed("none:tls:mtls")).isEqualTo(NfsTransport.OTHER);
    }
}
