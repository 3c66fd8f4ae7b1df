package pillar.agent.nfs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;

import org.junit.jupiter.api.Test;

import pillar.api.value.VolumeId;

/**
 * The NFS server contract against the fake, and what only the fake shows: a new fsid leaves old mounts stale, a
 * hung release answers PENDING and a retry releases.
 */
class FakeNfsServerTest extends NfsServerContract {
    private final FakeNfsServer fake = new FakeNfsServer();

    @Override
    protected NfsServer server() {
        return fake;
    }

    @Override
    protected Path exportable(String name) {
        return fake.directory(Path.of("/tank/nfs/" + name));
    }

    @Override
    protected Mount mount(NfsClient client, Path path) {
        return fake.mount(client, path);
    }

    @Override
    protected Mount mountTls(NfsClient client, Path path) {
        return fake.mountTls(client, path);
    }

    @Override
    protected void loseTls() {
        fake.setTlsProblem("kernel 6.1.0 has no RPC-with-TLS in nfsd");
    }

    @Override
    protected void wipe() {
        fake.wipe();
    }

    @Override
    protected boolean holdsState(NfsClient client, Path path) {
        return fake.holdsState(client, path);
    }

    @Override
    protected void removeEntryOnly(Path path, NfsClient client) {
        fake.removeEntryOnly(path, client);
    }

    @Test
    void aHungReleaseIsPendingKeepsTheStateAndLeavesOtherCallsAloneUntilARetryReleasesIt() {
        Path v1 = exportable("v1");
        Path v2 = exportable("v2");
        fake.export(v1, A, FSID);
        mount(A, v1).write("a", "1");
        fake.hangReleases(true);

        assertThat(fake.unexport(v1, A)).isEqualTo(StateRelease.PENDING);
        assertThat(fake.exports()).isEmpty();
        assertThat(holdsState(A, v1)).isTrue();
        fake.export(v2, B, NfsFsid.of(VolumeId.of("pvc-2")));
        mount(B, v2).write("b", "2");

        fake.hangReleases(false);
        assertThat(fake.releaseState(v1, A)).isEqualTo(StateRelease.DONE);
        assertThat(holdsState(A, v1)).isFalse();
    }

    @Test
    void anExportMadeAgainWithAnotherFsidLeavesTheOldMountStale() {
        Path v1 = exportable("v1");
        fake.export(v1, A, FSID);
        Mount a = fake.mount(A, v1);
        fake.wipe();

        fake.export(v1, A, NfsFsid.of(VolumeId.of("pvc-other")));

        assertThatThrownBy(() -> a.read("x")).isInstanceOfSatisfying(AccessException.class, e -> assertThat(e.errno).isEqualTo("ESTALE"));
    }

    @Test
    void aPathThatDoesNotExistIsNotExported() {
        assertThatThrownBy(() -> fake.export(Path.of("/tank/nfs/missing"), A, FSID)).isInstanceOf(NfsServerException.class);
        assertThat(fake.exports()).isEmpty();
    }
}
