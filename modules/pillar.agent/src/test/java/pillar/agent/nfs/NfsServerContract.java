package pillar.agent.nfs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;

import pillar.api.value.InvalidValueException;
import pillar.api.value.VolumeId;

/**
 * What any {@link NfsServer} must do, as docs/nfs.md measured nfsd: per-client exports, each read-write or read-only, the fence of an
 * unexport (fact 2), a wipe and re-apply that keeps data and mounts (fact 3), idempotent calls, and bad
 * input refused without a change, and the release of a removed client's NFSv4 state (whole when it has no
 * entry left, the path's when no other client has it, none while others do; retried after the entry went
 * alone). Run against {@link FakeNfsServer}; a kernel test subclasses it with nfsd, exportfs and nodes'
 * network namespaces (the path's revocation needs Linux 6.9: docs/nfs.md fact 14).
 */
public abstract class NfsServerContract {
    protected static final NfsClient A = NfsClient.parse("a", "10.77.1.2");
    protected static final NfsClient B = NfsClient.parse("b", "10.77.2.2");
    protected static final NfsClient C = NfsClient.parse("c", "10.77.3.2");
    protected static final NfsFsid FSID = NfsFsid.of(VolumeId.of("pvc-1"));

    /** A node's mount of an export; each call is one NFS request. */
    public interface Mount {
        void write(String name, String text);

        String read(String name);
    }

    /** An NFS call refused with this errno (ESTALE, EACCES, ENOENT, EIO, EROFS). */
    public static final class AccessException extends RuntimeException {
        private static final long serialVersionUID = 1L;
        public final String errno;

        public AccessException(String errno) {
            super(errno);
            this.errno = errno;
        }
    }

    /** The server under test. */
    protected abstract NfsServer server();

    /** A fresh directory (a mounted dataset) that may be exported. */
    protected abstract Path exportable(String name);

    /** Node {@code client} mounts {@code path}; refused as an {@link AccessException}. */
    protected abstract Mount mount(NfsClient client, Path path);

    /** Node {@code client} mounts {@code path} over RPC-with-TLS, trusting the server's certificate. */
    protected abstract Mount mountTls(NfsClient client, Path path);

    /** From now on the server cannot require RPC-with-TLS (an old kernel or old NFS tools). */
    protected abstract void loseTls();

    /** Every export removed ({@code exportfs -ua}). */
    protected abstract void wipe();

    /** Whether nfsd holds NFSv4 state (opens, locks, delegations) of {@code client} on {@code path}. */
    protected abstract boolean holdsState(NfsClient client, Path path);

    /** {@code exportfs -u} of the entry alone, as an agent that died before releasing the client's state left it. */
    protected abstract void removeEntryOnly(Path path, NfsClient client);

    @Test
    void aTlsOnlyEntryRefusesAPlaintextMountAdmitsATlsOneAndIsListedSo() {
        Path v1 = exportable("v1");
        assertThat(server().tlsProblem()).isEmpty();
        server().export(v1, A, FSID, NfsAccess.READ_WRITE, NfsSquash.NO_ROOT_SQUASH, NfsTransport.TLS);

        assertThat(server().exports()).containsExactly(new NfsExport(v1, A, FSID.text(), NfsAccess.READ_WRITE,
                NfsSquash.NO_ROOT_SQUASH, NfsTransport.TLS));
        assertThatThrownBy(() -> mount(A, v1).write("a", "plain")).isInstanceOfSatisfying(AccessException.class,
                e -> assertThat(e.errno).isEqualTo("EPERM"));
        mountTls(A, v1).write("a", "over tls");
        assertThat(mountTls(A, v1).read("a")).isEqualTo("over tls");

        server().export(v1, A, FSID);
        assertThat(server().exports()).singleElement().extracting(NfsExport::transport).isEqualTo(NfsTransport.ANY);
        assertThat(mount(A, v1).read("a")).as("any transport again: plaintext mounts").isEqualTo("over tls");
    }

    @Test
    void tlsWhereTheServerCannotRequireItIsRefusedAndChangesNothing() {
        Path v1 = exportable("v1");
        server().export(v1, B, FSID);
        loseTls();

        assertThat(server().tlsProblem()).isPresent();
        assertThatThrownBy(() -> server().export(v1, A, FSID, NfsAccess.READ_WRITE, NfsSquash.NO_ROOT_SQUASH, NfsTransport.TLS))
                .isInstanceOf(NfsTlsUnsupportedException.class).hasMessageContaining(v1.toString());
        assertThat(server().exports()).containsExactly(new NfsExport(v1, B, FSID.text()));
        assertThatThrownBy(() -> server().export(v1, A, FSID, NfsAccess.READ_WRITE, NfsSquash.NO_ROOT_SQUASH, NfsTransport.OTHER))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aClientsLastEntryRemovedReleasesItsStateAndNoOtherClients() {
        Path v1 = exportable("v1");
        server().export(v1, A, FSID);
        server().export(v1, B, FSID);
        mount(A, v1).write("a", "1");
        Mount b = mount(B, v1);

        assertThat(server().unexport(v1, A)).isEqualTo(StateRelease.DONE);

        assertThat(holdsState(A, v1)).isFalse();
        assertThat(holdsState(B, v1)).isTrue();
        b.write("b", "2");
    }

    @Test
    void aReleaseRetriedAfterTheEntryWentAloneStillReleasesTheState() {
        Path v1 = exportable("v1");
        server().export(v1, A, FSID);
        mount(A, v1).write("a", "1");
        removeEntryOnly(v1, A);
        assertThat(holdsState(A, v1)).isTrue();

        assertThat(server().unexport(v1, A)).as("the entry gone: nothing to release by unexport").isEqualTo(StateRelease.DONE);
        assertThat(server().releaseState(v1, A)).isEqualTo(StateRelease.DONE);

        assertThat(holdsState(A, v1)).isFalse();
        assertThat(server().releaseState(v1, A)).as("again").isEqualTo(StateRelease.DONE);
        assertThat(server().exports()).isEmpty();
    }

    @Test
    void aClientWithAnotherExportLosesItsStateOnTheRemovedPathOnly() {
        Path v1 = exportable("v1");
        Path v2 = exportable("v2");
        NfsFsid other = NfsFsid.of(VolumeId.of("pvc-2"));
        server().export(v1, A, FSID);
        server().export(v2, A, other);
        mount(A, v1).write("a", "1");
        Mount a2 = mount(A, v2);

        assertThat(server().unexport(v1, A)).isEqualTo(StateRelease.DONE);

        assertThat(holdsState(A, v1)).isFalse();
        assertThat(holdsState(A, v2)).isTrue();
        a2.write("a", "still");
        assertThat(a2.read("a")).isEqualTo("still");
    }

    @Test
    void aPathOtherClientsStillHaveIsNotRevokedForAClientWithOtherExports() {
        Path v1 = exportable("v1");
        Path v2 = exportable("v2");
        server().export(v1, A, FSID);
        server().export(v1, B, FSID);
        server().export(v2, A, NfsFsid.of(VolumeId.of("pvc-2")));
        mount(A, v1).write("a", "1");
        mount(A, v2).write("a", "1");
        Mount b = mount(B, v1);

        assertThat(server().unexport(v1, A)).isEqualTo(StateRelease.DONE);

        assertThat(holdsState(B, v1)).as("B's state: a revocation of v1 would take it").isTrue();
        assertThat(holdsState(A, v1)).as("A's state on v1 stays: the limit docs/nfs.md fact 14 states").isTrue();
        assertThat(holdsState(A, v2)).isTrue();
        b.write("b", "2");
    }

    @Test
    void aReleaseOfAClientStillExportedChangesNothing() {
        Path v1 = exportable("v1");
        server().export(v1, A, FSID);
        Mount a = mount(A, v1);
        a.write("a", "1");

        assertThat(server().releaseState(v1, A)).isEqualTo(StateRelease.DONE);

        assertThat(holdsState(A, v1)).isTrue();
        assertThat(a.read("a")).isEqualTo("1");
        assertThat(server().exports()).containsExactly(new NfsExport(v1, A, FSID.text()));
    }

    @Test
    void twoClientsOfOneExportReadEachOthersWritesAndTheListingShowsEach() {
        Path v1 = exportable("v1");
        server().export(v1, A, FSID);
        server().export(v1, B, FSID);

        mount(A, v1).write("from-a", "written-by-a");
        mount(B, v1).write("from-b", "written-by-b");

        assertThat(mount(B, v1).read("from-a")).isEqualTo("written-by-a");
        assertThat(mount(A, v1).read("from-b")).isEqualTo("written-by-b");
        assertThat(server().exports()).containsExactlyInAnyOrder(new NfsExport(v1, A, FSID.text()), new NfsExport(v1, B, FSID.text()));
    }

    @Test
    void anUnexportedClientIsCutAtOnceWhileTheOtherKeepsWorking() {
        Path v1 = exportable("v1");
        server().export(v1, A, FSID);
        server().export(v1, B, FSID);
        Mount a = mount(A, v1);
        Mount b = mount(B, v1);
        b.write("from-b", "before");

        server().unexport(v1, B);

        assertThatThrownBy(() -> b.read("from-b")).isInstanceOfSatisfying(AccessException.class, e -> assertThat(e.errno).isEqualTo("ESTALE"));
        assertThatThrownBy(() -> b.write("from-b2", "after")).isInstanceOf(AccessException.class);
        a.write("from-a", "still");
        assertThat(a.read("from-b")).isEqualTo("before");
        assertThat(server().exports()).containsExactly(new NfsExport(v1, A, FSID.text()));
    }

    @Test
    void aWipeAndReapplyKeepsTheDataAndTheMount() {
        Path v1 = exportable("v1");
        server().export(v1, A, FSID);
        Mount a = mount(A, v1);
        a.write("from-a", "written-by-a");

        wipe();
        assertThatThrownBy(() -> a.read("from-a")).isInstanceOf(AccessException.class);
        assertThat(server().exports()).isEmpty();
        server().export(v1, A, FSID);

        assertThat(a.read("from-a")).isEqualTo("written-by-a");
        a.write("from-a3", "after-reapply");
        assertThat(a.read("from-a3")).isEqualTo("after-reapply");
    }

    @Test
    void exportsArePerClientAndPerPath() {
        Path v1 = exportable("v1");
        Path v2 = exportable("v2");
        server().export(v1, A, FSID);
        server().export(v2, C, NfsFsid.of(VolumeId.of("pvc-2")));

        assertThatThrownBy(() -> mount(C, v1)).isInstanceOf(AccessException.class);
        assertThatThrownBy(() -> mount(A, v2)).isInstanceOf(AccessException.class);
        mount(A, v1).write("x", "1");
        mount(C, v2).write("x", "2");
        assertThat(mount(A, v1).read("x")).isEqualTo("1");
    }

    @Test
    void aReadOnlyClientReadsButCannotWriteWhileAReadWriteOneWritesAndAChangedAccessAppliesToTheMount() {
        Path v1 = exportable("v1");
        server().export(v1, A, FSID, NfsAccess.READ_WRITE);
        server().export(v1, B, FSID, NfsAccess.READ_ONLY);
        assertThat(server().exports()).containsExactlyInAnyOrder(new NfsExport(v1, A, FSID.text(), NfsAccess.READ_WRITE),
                new NfsExport(v1, B, FSID.text(), NfsAccess.READ_ONLY));

        Mount a = mount(A, v1);
        Mount b = mount(B, v1);
        a.write("from-a", "written-by-a");
        assertThat(b.read("from-a")).isEqualTo("written-by-a");
        assertThatThrownBy(() -> b.write("from-b", "must-not-land")).isInstanceOfSatisfying(AccessException.class,
                e -> assertThat(e.errno).isEqualTo("EROFS"));

        server().export(v1, A, FSID, NfsAccess.READ_ONLY);
        assertThatThrownBy(() -> a.write("from-a2", "must-not-land")).isInstanceOfSatisfying(AccessException.class,
                e -> assertThat(e.errno).isEqualTo("EROFS"));
        server().export(v1, B, FSID, NfsAccess.READ_WRITE);
        b.write("from-b", "written-by-b");
        assertThat(a.read("from-b")).isEqualTo("written-by-b");
        assertThat(server().exports()).containsExactlyInAnyOrder(new NfsExport(v1, A, FSID.text(), NfsAccess.READ_ONLY),
                new NfsExport(v1, B, FSID.text(), NfsAccess.READ_WRITE));
    }

    @Test
    void exportAndUnexportAreIdempotent() {
        Path v1 = exportable("v1");
        server().export(v1, A, FSID);
        server().export(v1, A, FSID);
        assertThat(server().exports()).containsExactly(new NfsExport(v1, A, FSID.text()));

        server().unexport(v1, A);
        server().unexport(v1, A);
        server().unexport(v1, C);
        assertThat(server().exports()).isEmpty();
    }

    @Test
    void badPathsAreRefusedAndChangeNothing() {
        Path v1 = exportable("v1");
        server().export(v1, A, FSID);
        List<NfsExport> before = server().exports();

        for (String bad : List.of("relative/dir", "/a b", "/a,rw", "/x/../etc", "/x/./y", "/q\"uote")) {
            assertThatThrownBy(() -> server().export(Path.of(bad), B, FSID)).as(bad).isInstanceOf(InvalidValueException.class);
            assertThatThrownBy(() -> server().unexport(Path.of(bad), A)).as(bad).isInstanceOf(InvalidValueException.class);
            assertThatThrownBy(() -> server().releaseState(Path.of(bad), A)).as(bad).isInstanceOf(InvalidValueException.class);
        }
        assertThat(server().exports()).isEqualTo(before);
    }
}
