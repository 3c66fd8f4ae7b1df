package pillar.agent.configfs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;

/**
 * {@link ConfigfsTreeContract} on {@link FakeConfigfsTree} (the same contract passes on the kernel:
 * {@link ConfigfsTreeKernelIT}), and what only the fake has: the kernel "disagreeing", the journal, the
 * states without nvmet or configfs.
 */
class FakeConfigfsTreeTest extends ConfigfsTreeContract {
    private static final Path DEVICE = Path.of("/dev/fake/contract");

    private final FakeConfigfsTree fake = FakeConfigfsTree.create().addBlockDevice(DEVICE);

    @Override
    ConfigfsTree tree() {
        return fake;
    }

    @Override
    Path configfs() {
        return fake.root();
    }

    @Override
    Path device() {
        return DEVICE;
    }

    @Test
    void anInjectedDisagreementIsWhatReadsShow() throws IOException {
        fake.mkdir(subsystem(S));
        Path any = subsystem(S).resolve("attr_allow_any_host");
        fake.readsBack(any, "0");
        fake.write(any, "1");
        assertThat(fake.read(any)).isEqualTo("0\n");
        assertThat(fake.dump()).contains("subsystems/" + S + "/attr_allow_any_host = 1"); // the model holds the write
    }

    @Test
    void theJournalListsChangingCallsInOrderWithTheirRefusals() throws IOException {
        fake.mkdir(subsystem(S));
        fake.write(subsystem(S).resolve("attr_allow_any_host"), "1");
        fake.read(subsystem(S).resolve("attr_model"));
        fake.list(subsystem(S));
        try {
            fake.mkdir(subsystem(S));
        } catch (IOException expected) {
            // EEXIST
        }
        assertThat(fake.journal()).containsExactly("mkdir subsystems/" + S,
                "write subsystems/" + S + "/attr_allow_any_host 1", "mkdir subsystems/" + S + ": EEXIST");
        assertThat(fake.changes()).hasSize(2);
    }

    @Test
    void withoutNvmetOrConfigfsThereIsNothingToFind() {
        FakeConfigfsTree noNvmet = FakeConfigfsTree.withoutNvmet();
        assertThat(noNvmet.kind(noNvmet.root())).isEqualTo(ConfigfsTree.Kind.DIRECTORY);
        assertThat(noNvmet.kind(noNvmet.nvmet("subsystems"))).isEqualTo(ConfigfsTree.Kind.ABSENT);
        refused(() -> noNvmet.mkdir(noNvmet.root().resolve("nvmet")), java.nio.file.FileSystemException.class,
                Errno.EPERM);
        FakeConfigfsTree unmounted = FakeConfigfsTree.unmounted();
        assertThat(unmounted.kind(unmounted.root())).isEqualTo(ConfigfsTree.Kind.ABSENT);
        refused(() -> unmounted.list(unmounted.root()), java.nio.file.NoSuchFileException.class, Errno.ENOENT);
    }

    @Test
    void pathsOutsideTheMountAreABugNotAnError() {
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> fake.mkdir(Path.of("/etc/pillar-csi")))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("outside the configfs mount");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> fake.mkdir(fake.nvmet("subsystems/../../../../x")))
                .isInstanceOf(IllegalStateException.class);
    }
}
