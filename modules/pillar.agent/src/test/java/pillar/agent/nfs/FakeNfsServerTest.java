package pillar.agent.nfs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;

import org.junit.jupiter.api.Test;

import pillar.api.value.VolumeId;

/** The NFS server contract against the fake, and what only the fake shows: a new fsid leaves old mounts stale. */
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
    protected void wipe() {
        fake.wipe();
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
