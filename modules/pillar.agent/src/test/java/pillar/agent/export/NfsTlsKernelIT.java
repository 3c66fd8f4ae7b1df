package pillar.agent.export;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.Set;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import pillar.agent.nfs.KernelNfsServer;
import pillar.agent.nfs.NfsClient;
import pillar.agent.nfs.NfsSquash;
import pillar.agent.nfs.NfsTransport;
import pillar.api.value.VolumeId;
import pillar.runtime.exec.CommandFailedException;
import pillar.runtime.exec.SystemProcessRunner;
import pillar.testkit.Commands;
import pillar.testkit.LoopbackNfsd;
import pillar.testkit.OpensslCa;
import pillar.testkit.Tlshd;
import pillar.testkit.WireCapture;

/**
 * RPC-with-TLS seen from outside, on the kernel of the VM tier that has it ({@code dev/kernel-it --kernel 6.12},
 * whose guest has Debian 13's nfs-utils 2.8.3): nfsd and rpc.mountd serve over loopback, {@code tlshd} holds the
 * server's certificate (for 127.0.0.1, from a CA of the test's own, made by openssl as docs/nfs.md tells an operator:
 * {@link OpensslCa}) and, as the client's trust store, that CA.
 * An export the agent made with {@link NfsTransport#TLS} refuses a plaintext mount; a TLS mount writes, and a
 * capture of port 2049 while it writes holds none of the data, where the same capture of a plaintext export finds
 * it; a client that trusts another CA cannot mount at all (the server is authenticated).
 */
class NfsTlsKernelIT {
    private static final Path TOP = Path.of("/pillar-nfs-tls");
    private static final NfsClient LOOPBACK = NfsClient.parse("client", "127.0.0.1");
    private static final int WRITTEN = 1 << 20;
    private static final int NFS_PORT = 2049;

    @TempDir
    static Path work;

    private static LoopbackNfsd nfsd;
    private static Tlshd tlshd;
    private static OpensslCa ca;
    private static OpensslCa otherCa;
    private static OpensslCa.Issued serverCert;

    private final KernelNfsServer server = new KernelNfsServer(new SystemProcessRunner(), Duration.ofSeconds(30),
            Path.of("/etc/exports"), Path.of("/var/lib/nfs/etab"), Path.of("/proc"));
    private final NfsExporter exporter = new NfsExporter(server);

    @BeforeAll
    static void bed() throws Exception {
        LoopbackNfsd.requireVm();
        Commands.run("modprobe", "nfsd");
        if (!Files.exists(Path.of("/proc/fs/nfsd/exports"))) {
            Commands.run("mount", "-t", "nfsd", "nfsd", "/proc/fs/nfsd");
        }
        KernelNfsServer probe = new KernelNfsServer(new SystemProcessRunner(), Duration.ofSeconds(30), Path.of("/etc/exports"),
                Path.of("/var/lib/nfs/etab"), Path.of("/proc"));
        assertThat(probe.tlsProblem()).as("kernel %s: run with --kernel 6.12, whose guest has nfs-utils 2.8.3",
                System.getProperty("os.version")).isEmpty();
        ca = OpensslCa.create(work, "nfs-ca");
        otherCa = OpensslCa.create(work, "other-ca");
        serverCert = ca.issueServer(work, "storage-1", "127.0.0.1");
        tlshd = trusting(ca);
        nfsd = LoopbackNfsd.start(TOP, work);
    }

    @AfterAll
    static void stop() throws Exception {
        if (nfsd != null) {
            nfsd.close();
        }
        if (tlshd != null) {
            tlshd.close();
        }
    }

    @Test
    void aTlsExportRefusesAPlaintextMountAndItsTlsMountCarriesNoPlaintextOnTheWire() throws Exception {
        NfsExportRecord tls = record("tls", NfsTransport.TLS);
        exporter.apply(tls);
        assertThat(exporter.drift(tls)).isEmpty();
        Path at = Files.createDirectories(work.resolve("mnt-tls"));

        assertThatThrownBy(() -> LoopbackNfsd.mount(tls.path(), at, "")).as("a plaintext mount of the TLS export")
                .isInstanceOf(CommandFailedException.class).hasMessageContaining("ermission denied");
        assertThat(Commands.succeeds("mountpoint", "-q", at.toString())).isFalse();

        LoopbackNfsd.mount(tls.path(), at, "xprtsec=tls");
        WireCapture capture = WireCapture.start(work.resolve("tls.pcap"), NFS_PORT);
        try {
            assertThat(Files.readString(Path.of("/proc/self/mountinfo"))).as("the kernel's own account of the mount")
                    .containsPattern(at + " .* nfs4 .*xprtsec=tls");
            writeMarkers(at);
        } finally {
            capture.stop();
            Commands.run("umount", at.toString());
        }
        System.out.println("[nfs-tls-kernel-it] TLS export: " + capture.bytes() + " bytes captured, " + capture.markers() + " markers");
        // tcpdump under TCG drops some packets: half the write's bytes show the capture ran while the data crossed
        assertThat(capture.bytes()).as("the capture saw the write go by").isGreaterThan(WRITTEN / 2);
        assertThat(capture.markers()).as("plaintext of the written data on the wire").isZero();
        assertThat(WireCapture.count(Files.readAllBytes(tls.path().resolve("data")), WireCapture.MARKER))
                .as("the data reached the server").isGreaterThan(WRITTEN / WireCapture.MARKER.length / 2);
        exporter.remove(tls);

        NfsExportRecord plain = record("plain", NfsTransport.ANY);
        exporter.apply(plain);
        Path plainAt = Files.createDirectories(work.resolve("mnt-plain"));
        LoopbackNfsd.mount(plain.path(), plainAt, "");
        WireCapture plainCapture = WireCapture.start(work.resolve("plain.pcap"), NFS_PORT);
        try {
            writeMarkers(plainAt);
        } finally {
            plainCapture.stop();
            Commands.run("umount", plainAt.toString());
            exporter.remove(plain);
        }
        System.out.println("[nfs-tls-kernel-it] plaintext export: " + plainCapture.bytes() + " bytes captured, "
                + plainCapture.markers() + " markers");
        assertThat(plainCapture.markers()).as("the same check on a plaintext export finds the data").isPositive();
    }

    @Test
    void aClientThatDoesNotTrustTheServersCertificateCannotMount() throws Exception {
        NfsExportRecord tls = record("untrusted", NfsTransport.TLS);
        exporter.apply(tls);
        Path at = Files.createDirectories(work.resolve("mnt-untrusted"));
        tlshd.close();
        tlshd = trusting(otherCa);
        try {
            // refused at once (1.8 s in the VM), never a mount left retrying until its deadline
            assertThatThrownBy(() -> LoopbackNfsd.mount(tls.path(), at, "xprtsec=tls")).as("a client trusting another CA")
                    .isInstanceOfSatisfying(CommandFailedException.class, e -> assertThat(e.exitCode()).as(e.getMessage()).isEqualTo(32));
            assertThat(Commands.succeeds("mountpoint", "-q", at.toString())).isFalse();
        } finally {
            tlshd.close();
            tlshd = trusting(ca);
            exporter.remove(tls);
        }
    }

    private static NfsExportRecord record(String name, NfsTransport transport) throws IOException {
        Path dir = Files.createDirectories(TOP.resolve(name));
        return new NfsExportRecord(VolumeId.of("nfs-tls-" + name), "tank-nfs", dir, LOOPBACK, Set.of(LOOPBACK), Set.of(), Set.of(),
                NfsSquash.NO_ROOT_SQUASH, transport);
    }

    /** Writes {@link #WRITTEN} bytes of markers into a new file of the mount and waits for the server to have them. */
    private static void writeMarkers(Path mount) throws IOException {
        try (FileChannel file = FileChannel.open(mount.resolve("data"), StandardOpenOption.CREATE, StandardOpenOption.WRITE)) {
            ByteBuffer data = ByteBuffer.wrap(WireCapture.markerData(WRITTEN));
            while (data.hasRemaining()) {
                file.write(data);
            }
            file.force(true);
        }
    }

    /** tlshd presenting the server's certificate and trusting {@code trusted} as a client: both ends of the loopback. */
    private static Tlshd trusting(OpensslCa trusted) throws Exception {
        return Tlshd.withCertificates(work, serverCert.cert(), serverCert.key(), trusted.cert());
    }
}
