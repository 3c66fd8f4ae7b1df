package pillar.node.attach;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.grpc.Status;
import pillar.node.mount.FakeMounter;
import pillar.node.mount.MountOptions;
import pillar.node.mount.NfsExport;
import pillar.node.sys.Errno;
import pillar.runtime.server.CsiException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@link NfsAttacherContract} on a {@link FakeMounter}, whose server refuses one export (EACCES); and mounts over
 * RPC-with-TLS, which the contract's kernel run (6.1) cannot make: attached only as the kernel lists them, and
 * each refusal the 6.12 VM showed explained.
 */
class NfsAttacherFakeTest extends NfsAttacherContract {
    private static final NfsExport EXPORTED = new NfsExport("10.0.0.5", "/tank/pvc-a", "10.0.0.7");
    private static final NfsExport DENIED = new NfsExport("10.0.0.5", "/tank/pvc-denied", "10.0.0.7");

    @TempDir
    Path root;
    private final FakeMounter mounter = new FakeMounter();
    private Path staging;

    @BeforeEach
    void makeStaging() throws Exception {
        staging = Files.createDirectories(root.resolve("globalmount"));
        mounter.refuseNfs(DENIED.source(), Errno.EACCES);
        runOn(mounter, EXPORTED, DENIED, staging);
    }

    @Test
    void aTlsMountIsAttachedWithXprtsecAndEachRefusalSaysWhatTheNodeLacks() {
        NfsExport tls = new NfsExport("10.0.0.5", "/tank/pvc-tls", "10.0.0.7", true);
        NfsAttacher attacher = new NfsAttacher(mounter);
        NfsMount context = new NfsMount(tls, staging, MountOptions.NONE);
        for (var refusal : Map.of(Errno.ESRCH, "run tlshd", Errno.EACCES, "x509.truststore", Errno.EINVAL, "Linux 6.5").entrySet()) {
            mounter.refuseTlsMounts(refusal.getKey());
            assertThatThrownBy(() -> attacher.attach(context, linked -> { })).as(refusal.getKey().toString())
                    .isInstanceOfSatisfying(CsiException.class, e -> assertThat(e.code()).isEqualTo(Status.Code.FAILED_PRECONDITION))
                    .hasMessageContaining(refusal.getValue()).hasMessageContaining("over TLS");
            assertThat(attacher.attached(context)).isEmpty();
        }
        mounter.refuseTlsMounts(null);

        Attachment.Mount mounted = attacher.attach(context, linked -> { });

        assertThat(mounted.entry().superOptions()).contains("xprtsec=tls");
        assertThat(attacher.attached(context)).isPresent();
        assertThat(attacher.attached(new NfsMount(new NfsExport("10.0.0.5", "/tank/pvc-tls", "10.0.0.7"), staging, MountOptions.NONE)))
                .as("the same export in plaintext is another mount").isEmpty();
    }
}
