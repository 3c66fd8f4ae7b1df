package pillar.node.attach;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;

import pillar.node.mount.MountOptions;
import pillar.node.mount.Mounter;
import pillar.node.mount.NfsExport;

/**
 * {@link AttacherContract} for {@link NfsAttacher}, on whatever mount table a subclass gives: one export
 * the server serves, one it refuses, both mounted at the same staging directory.
 */
abstract class NfsAttacherContract extends AttacherContract<NfsMount, Attachment.Mount> {
    private Mounter mounter;
    private NfsExport exported;
    private NfsExport denied;
    private Path staging;

    /**
     * What the contract runs on, set by the subclass before each test: the host's mount table, the export
     * the server serves, one it refuses, and an empty directory for the staging path.
     */
    void runOn(Mounter mounter, NfsExport exported, NfsExport denied, Path staging) {
        this.mounter = mounter;
        this.exported = exported;
        this.denied = denied;
        this.staging = staging;
    }

    @Override
    Attacher<NfsMount, Attachment.Mount> newAttacher() {
        return new NfsAttacher(mounter);
    }

    @Override
    Protocol protocol() {
        return Protocol.NFS;
    }

    @Override
    NfsMount reachable() {
        return new NfsMount(exported, staging, MountOptions.NONE);
    }

    @Override
    NfsMount refused() {
        return new NfsMount(denied, staging, MountOptions.NONE);
    }

    @Override
    String named(NfsMount context) {
        return context.export().source();
    }

    @Override
    long connections(NfsMount context) {
        return mounter.table().stream().filter(e -> e.mountPoint().equals(context.at())).count();
    }

    @Override
    void assertStageable(Attachment.Mount mount) throws Exception {
        assertThat(mount.entry().mountPoint()).isEqualTo(staging);
        assertThat(exported.matches(mount.entry())).isTrue();
    }
}
