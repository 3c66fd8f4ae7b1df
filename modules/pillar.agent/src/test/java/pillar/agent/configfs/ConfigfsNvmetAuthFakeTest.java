package pillar.agent.configfs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

import org.junit.jupiter.api.Test;

import pillar.api.value.Nqn;

/**
 * {@link NvmetAuthContract} on the fake tree with authentication (as Debian's 6.12), and what only the
 * fake can show: the order of the writes (keys before the link) and that no secret reaches an error.
 */
class ConfigfsNvmetAuthFakeTest extends NvmetAuthContract {
    private static final Path DEVICE = Path.of("/dev/vg0/pvc-a");

    private final FakeConfigfsTree fake;
    private final ConfigfsNvmetTarget target;
    private final Map<String, FakeNvmetControllers.Controller> controllers = new HashMap<>();

    ConfigfsNvmetAuthFakeTest() {
        super(FakeConfigfsTree.createWithAuth().addBlockDevice(DEVICE), FakeConfigfsTree.DEFAULT_ROOT, DEVICE);
        this.fake = (FakeConfigfsTree) tree();
        this.target = target();
    }

    @Override
    String connect(Nqn host, String hostSecret, String ctrlSecret) throws IOException {
        String name = "fake" + controllers.size();
        controllers.put(name, fake.connect(ADDRESS, A, host, hostSecret, ctrlSecret));
        return name;
    }

    @Override
    void disconnect(String controller) {
        fake.disconnect(controllers.remove(controller));
    }

    @Test
    void theKeysAreWrittenBeforeTheHostIsLinked() {
        export(HostAuth.oneWay(KEY_1));
        String h = "hosts/" + HOST;
        assertThat(fake.changes()).containsSubsequence("mkdir " + h, "write " + h + "/dhchap_key " + KEY_1.value(),
                "symlink subsystems/" + A + "/allowed_hosts/" + HOST + " -> " + h);
        assertThat(fake.changes()).as("hash and group hold the kernel's defaults already: not rewritten")
                .noneMatch(c -> c.contains("dhchap_hash") || c.contains("dhchap_dhgroup"));
    }

    @Test
    void aRefusedKeyWriteNeverShowsTheSecret() {
        target.ensureSubsystem(A, false);
        fake.readsBack(fake.nvmet("hosts/" + HOST + "/dhchap_key"), "something else");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> target.allowHost(A, HOST, Optional.of(HostAuth.oneWay(KEY_1))))
                .isInstanceOf(NvmetTargetException.class).hasMessageContaining("reads back another value")
                .satisfies(e -> assertThat(e.getMessage()).doesNotContain(KEY_1.value().substring(10, 40)));
    }
}
