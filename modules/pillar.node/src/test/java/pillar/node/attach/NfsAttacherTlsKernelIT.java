package pillar.node.attach;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.grpc.Status;
import pillar.node.mount.JnaMounter;
import pillar.node.mount.MountOptions;
import pillar.node.mount.Mounter;
import pillar.node.mount.NfsExport;
import pillar.node.sys.Errno;
import pillar.node.sys.SyscallException;
import pillar.runtime.server.CsiException;
import pillar.testkit.LoopbackNfsd;
import pillar.testkit.OpensslCa;
import pillar.testkit.Tlshd;

/**
 * The node's own NFS mount over RPC-with-TLS on the kernel that has it ({@code dev/kernel-it --kernel 6.12}):
 * {@link NfsAttacher} through mount(2) ({@link JnaMounter}, as the node runs it) against a loopback export that
 * admits TLS only, tlshd holding the server's certificate and trusting its CA. The mount is attached only as
 * the kernel lists it ({@code xprtsec=tls}) and its writes reach the server; a plaintext mount of the export is
 * refused by the server; and each way a node lacks TLS is the kernel's errno turned into a FAILED_PRECONDITION
 * that names it ({@link NfsTlsRefusal}): a trust store without the server's CA, and no tlshd at all.
 */
class NfsAttacherTlsKernelIT {
    @TempDir
    static Path work;
    private static LoopbackNfsd nfsd;
    private static OpensslCa ca;
    private static OpensslCa otherCa;
    private static OpensslCa.Issued serverCert;
    private static Tlshd tlshd;
    private static NfsExport tlsOnly;

    @TempDir
    Path stagingRoot;
    private final Mounter mounter = new JnaMounter(Path.of("/proc/self/mountinfo"));
    private final NfsAttacher attacher = new NfsAttacher(mounter);
    private Path staging;

    @BeforeAll
    static void serve() throws Exception {
        LoopbackNfsd.requireVm();
        String[] release = System.getProperty("os.version").split("[.-]");
        assertThat(Integer.parseInt(release[0]) * 100 + Integer.parseInt(release[1])).as("kernel %s has no RPC-with-TLS client"
                + " (6.5 or later); run with --kernel 6.12", System.getProperty("os.version")).isGreaterThanOrEqualTo(605);
        ca = OpensslCa.create(work, "nfs-ca");
        otherCa = OpensslCa.create(work, "other-ca");
        serverCert = ca.issueServer(work, "storage-1", "127.0.0.1");
        tlshd = Tlshd.withCertificates(work, serverCert.cert(), serverCert.key(), ca.cert());
        nfsd = LoopbackNfsd.start(Path.of("/pillar-node-nfs-tls"), work);
        tlsOnly = new NfsExport("127.0.0.1", nfsd.export("tls", "xprtsec=tls:mtls"), "127.0.0.1", true);
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

    @AfterEach
    void unmount() throws Exception {
        if (staging != null) {
            mounter.unmount(staging); // what a failed test left mounted
        }
    }

    @Test
    void aTlsMountIsAttachedAsTheKernelListsItAndAPlaintextOneIsRefused() throws Exception {
        staging = Files.createDirectories(stagingRoot.resolve("globalmount"));
        NfsMount context = new NfsMount(tlsOnly, staging, MountOptions.NONE);

        Attachment.Mount mounted = attacher.attach(context, linked -> { });

        assertThat(mounted.entry().superOptions()).contains("xprtsec=tls");
        assertThat(attacher.attached(context)).isPresent();
        Files.writeString(staging.resolve("written-over-tls"), "data\n");
        assertThat(Files.readString(Path.of(tlsOnly.path(), "written-over-tls"))).as("on the server").isEqualTo("data\n");
        attacher.detach(context);

        NfsMount plaintext = new NfsMount(new NfsExport("127.0.0.1", tlsOnly.path(), "127.0.0.1"), staging, MountOptions.NONE);
        // mount(2) says EPERM (mount(8) prints "permission denied"): not a TLS refusal, the node asked for plaintext
        assertThatThrownBy(() -> attacher.attach(plaintext, linked -> { })).as("the server admits TLS only")
                .isInstanceOfSatisfying(SyscallException.class, e -> assertThat(e.errno()).isEqualTo(Errno.EPERM));
        assertThat(attacher.attached(plaintext)).isEmpty();
    }

    @Test
    void eachRefusedTlsMountNamesWhatTheNodeLacks() throws Exception {
        staging = Files.createDirectories(stagingRoot.resolve("globalmount"));
        NfsMount context = new NfsMount(tlsOnly, staging, MountOptions.NONE);
        try {
            tlshd.close();
            tlshd = Tlshd.withCertificates(work, serverCert.cert(), serverCert.key(), otherCa.cert());
            assertThatThrownBy(() -> attacher.attach(context, linked -> { })).as("a trust store without the server's CA")
                    .isInstanceOfSatisfying(CsiException.class, e -> assertThat(e.code()).isEqualTo(Status.Code.FAILED_PRECONDITION))
                    .hasMessageContaining("EACCES").hasMessageContaining("x509.truststore");

            tlshd.close();
            tlshd = null;
            assertThatThrownBy(() -> attacher.attach(context, linked -> { })).as("no tlshd on the node")
                    .isInstanceOfSatisfying(CsiException.class, e -> assertThat(e.code()).isEqualTo(Status.Code.FAILED_PRECONDITION))
                    .hasMessageContaining("ESRCH").hasMessageContaining("run tlshd");
            assertThat(attacher.attached(context)).isEmpty();
        } finally {
            if (tlshd != null) {
                tlshd.close();
            }
            tlshd = Tlshd.withCertificates(work, serverCert.cert(), serverCert.key(), ca.cert());
        }
    }
}
