package pillar.agent.backend.zfs;

import static org.assertj.core.api.Assertions.assertThat;
import static pillar.agent.backend.BackendAssertions.assertFails;
import static pillar.agent.backend.ScriptedRunner.printing;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.junit.jupiter.api.Test;

import pillar.agent.backend.BackendException.Kind;
import pillar.agent.backend.Captures;
import pillar.agent.backend.Creation;
import pillar.agent.backend.ScriptedRunner;
import pillar.agent.backend.zfs.ZfsOutput.Property;
import pillar.api.value.ByteSize;
import pillar.api.value.VolumeId;
import pillar.runtime.exec.Command;

/**
 * The ZFS command layer on its own, answered with zfs's captured output ({@code zfs/}): the argument
 * lists and deadline it runs, what a refused create yields, and the failures each command maps (kind
 * and message). The backend's use of it is {@link ZfsVolumeBackendTest}'s.
 */
class ZfsTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(7);
    private static final VolumeId PVC_A = VolumeId.of("pvc-a");
    private static final String MANAGED = "io.pillar-csi:managed";

    private static Zfs zfs(ScriptedRunner runner) {
        return new Zfs(runner, TIMEOUT, "tank/k8s");
    }

    @Test
    void createBuildsTheArgumentListFromTheOptionsAndRunsItWithTheDeadline() {
        ScriptedRunner runner = new ScriptedRunner(Captures.zfs("create-sparse"), Captures.zfs("create-full"));
        Zfs zfs = zfs(runner);

        assertThat(zfs.create(PVC_A, ByteSize.ofMiB(64), new ZfsOptions(true, 16384, Optional.of("lz4")), MANAGED, "embedded"))
                .isEqualTo(new Creation.Made(false));
        assertThat(zfs.create(PVC_A, ByteSize.ofMiB(128), new ZfsOptions(false, 8192, Optional.empty()), MANAGED, "embedded"))
                .isEqualTo(new Creation.Made(false));

        assertThat(runner.commands()).containsExactly(
                new Command(List.of("zfs", "create", "-V", "67108864", "-b", "16384", "-s", "-o", "volmode=dev",
                        "-o", "io.pillar-csi:managed=embedded", "-o", "compression=lz4", "tank/k8s/pvc-a"), TIMEOUT),
                new Command(List.of("zfs", "create", "-V", "134217728", "-b", "8192", "-o", "volmode=dev",
                        "-o", "io.pillar-csi:managed=embedded", "tank/k8s/pvc-a"), TIMEOUT));
    }

    @Test
    void aTakenNameAndTooLittleSpaceAreResultsEveryOtherRefusalIsThrown() {
        ScriptedRunner runner = new ScriptedRunner(Captures.zfs("create-exists"), Captures.zfs("create-nospace"),
                Captures.zfs("create-noparent"), Captures.zfs("create-badblocksize"));
        Zfs zfs = zfs(runner);
        ZfsOptions options = ZfsOptions.parse(Map.of());

        assertThat(zfs.create(PVC_A, ByteSize.ofMiB(64), options, MANAGED, "embedded")).isInstanceOfSatisfying(Creation.NameTaken.class,
                taken -> assertThat(taken.cause().stderr()).endsWith("dataset already exists\n"));
        assertThat(zfs.create(PVC_A, ByteSize.ofGiB(2), options, MANAGED, "embedded")).isInstanceOfSatisfying(Creation.NoRoom.class,
                full -> assertThat(full.cause().stderr()).endsWith("out of space\n"));
        assertFails(() -> zfs.create(PVC_A, ByteSize.ofMiB(64), options, MANAGED, "embedded"), Kind.UNAVAILABLE,
                "parent dataset tank/k8s is not available: cannot create 'tank/k8s/pvc-a': parent does not exist (is the pool imported");
        assertFails(() -> zfs.create(PVC_A, ByteSize.ofMiB(64), options, MANAGED, "embedded"), Kind.FAILED,
                "zfs create of tank/k8s/pvc-a failed: zfs create ");
    }

    @Test
    void aDatasetNameLongerThanZfsAllowsIsRefusedBeforeAnyCommand() {
        ScriptedRunner runner = new ScriptedRunner();
        Zfs zfs = new Zfs(runner, TIMEOUT, "tank/" + "d".repeat(190));
        VolumeId longest = VolumeId.of("v".repeat(VolumeId.MAX_LENGTH));

        assertFails(() -> zfs.dataset(longest), Kind.INVALID, "is longer than ZFS's 255 characters");
        assertFails(() -> zfs.destroy(longest), Kind.INVALID, "is longer than ZFS's 255 characters");
        assertThat(zfs.dataset(VolumeId.of("v".repeat(59)))).hasSize(255);
        assertThat(runner.commands()).isEmpty();
    }

    @Test
    void propertiesAreReadWithTheirSourcesAndAMissingDatasetHasNone() {
        String sourced = "tank/k8s/pvc-a\tvolsize\t67108864\tlocal\ntank/k8s/pvc-a\tio.pillar-csi:managed\tembedded\tlocal\n";
        ScriptedRunner runner = new ScriptedRunner(printing(sourced, ""), Captures.zfs("get-missing"));
        Zfs zfs = zfs(runner);

        assertThat(zfs.properties(PVC_A, "volsize," + MANAGED)).hasValue(Map.of("volsize", new Property("67108864", "local"),
                MANAGED, new Property("embedded", "local")));
        assertThat(runner.lastArgv()).containsExactly("zfs", "get", "-Hp", "-o", "name,property,value,source", "volsize," + MANAGED,
                "tank/k8s/pvc-a");
        assertThat(zfs.properties(PVC_A, "volsize," + MANAGED)).isEmpty();
    }

    @Test
    void theZvolsOfAMissingParentAreUnavailableOrNone() {
        Captures.Capture noParent = Captures.zfs("list-noparent");
        ScriptedRunner runner = new ScriptedRunner(noParent, noParent);
        Zfs zfs = zfs(runner);

        assertFails(() -> zfs.zvolsOfParent("volsize"), Kind.UNAVAILABLE, "parent dataset tank/k8s is not available");
        assertThat(zfs.zvolsOfParentIfAny("volsize")).isEmpty();
        assertThat(runner.lastArgv()).containsExactly("zfs", "get", "-Hp", "-r", "-d", "1", "-t", "volume",
                "-o", "name,property,value,source", "volsize", "tank/k8s");
    }

    @Test
    void spaceIsTheParentsUsedAndAvailable() {
        ScriptedRunner runner = new ScriptedRunner(Captures.zfs("get-space"), Captures.zfs("get-space-nopool"));
        Zfs zfs = zfs(runner);

        Zfs.Space space = zfs.space();
        assertThat(space).isEqualTo(new Zfs.Space(140_546_048L, 731_658_752L));
        assertThat(space.total()).isEqualTo(872_204_800L);
        assertFails(zfs::space, Kind.UNAVAILABLE, "parent dataset tank/k8s is not available");
    }

    @Test
    void setVolsizeMapsAMissingZvolAndTooLittleSpace() {
        ScriptedRunner runner = new ScriptedRunner(Captures.zfs("set-volsize-missing"), Captures.zfs("set-volsize-nospace"),
                Captures.zfs("set-volsize-unaligned"));
        Zfs zfs = zfs(runner);

        assertFails(() -> zfs.setVolsize(PVC_A, ByteSize.ofMiB(128)), Kind.NOT_FOUND, "volume pvc-a does not exist below tank/k8s");
        assertThat(runner.lastArgv()).containsExactly("zfs", "set", "volsize=134217728", "tank/k8s/pvc-a");
        assertFails(() -> zfs.setVolsize(PVC_A, ByteSize.ofGiB(2)), Kind.NO_SPACE,
                "tank/k8s has no room to grow pvc-a to 2GiB: cannot set property for 'tank/k8s/pvc-b'");
        assertFails(() -> zfs.setVolsize(PVC_A, ByteSize.ofMiB(65)), Kind.FAILED, "zfs set volsize of tank/k8s/pvc-a failed");
    }

    @Test
    void destroyTellsAZvolGoneFromAZvolHeld() {
        ScriptedRunner runner = new ScriptedRunner(Captures.zfs("destroy"), Captures.zfs("destroy-missing"), Captures.zfs("destroy-busy"));
        Zfs zfs = zfs(runner);

        assertThat(zfs.destroy(PVC_A)).isEmpty();
        assertThat(runner.lastArgv()).containsExactly("zfs", "destroy", "tank/k8s/pvc-a");
        assertThat(zfs.destroy(PVC_A)).isEmpty();
        assertThat(zfs.destroy(PVC_A)).hasValueSatisfying(busy -> {
            assertThat(busy.kind()).isEqualTo(Kind.FAILED);
            assertThat(busy).hasMessageStartingWith("tank/k8s/pvc-a is busy: unexport it first");
        });
    }
}
