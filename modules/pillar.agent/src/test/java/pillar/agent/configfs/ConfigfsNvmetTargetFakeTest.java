package pillar.agent.configfs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import pillar.api.value.InvalidValueException;
import pillar.api.value.Nqn;

/**
 * {@link NvmetTargetContract} on {@link FakeConfigfsTree}, and what only the fake can show: the exact
 * order of the calls, a kernel that reads back another value than the one written, hostile input that
 * never reaches the tree, the hints when nvmet or configfs is missing, concurrent exports.
 */
class ConfigfsNvmetTargetFakeTest extends NvmetTargetContract {
    private static final Path DEVICE = Path.of("/dev/vg0/pvc-a");
    private static final Path OTHER_DEVICE = Path.of("/dev/zvol/tank/pvc-b");

    private final FakeConfigfsTree fake = FakeConfigfsTree.create().addBlockDevice(DEVICE).addBlockDevice(OTHER_DEVICE);
    private final ConfigfsNvmetTarget target = fake.target();

    @Override
    ConfigfsNvmetTarget target() {
        return target;
    }

    @Override
    boolean kernelHasAuth() {
        return false;
    }

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

    private final Map<String, FakeNvmetControllers.Controller> controllers = new HashMap<>();

    @Override
    String connect(PortAddress address, Nqn subsystem, Nqn host) throws IOException {
        String name = "fake" + controllers.size();
        controllers.put(name, fake.connect(address, subsystem, host));
        return name;
    }

    @Override
    void letTheHostReact() {
        // the fake's host reconnects when looked at
    }

    @Override
    Optional<Seen> look(String controller) {
        FakeNvmetControllers.Controller c = controllers.get(controller);
        return Optional.of(new Seen(fake.state(c), c.cntlid));
    }

    @Override
    Path otherDevice() {
        return OTHER_DEVICE;
    }

    /**
     * The drain: a request the revoked host sent before the disallow, held by a slow device, has completed
     * when the disallow returns (without the drain it is still in flight, and lands after the next node's).
     */
    @Test
    void aDisallowReturnsOnlyOnceTheRevokedHostsRequestsHaveCompleted() throws Exception {
        export(A, DEVICE, PORT, ADDRESS, HOST);
        FakeNvmetControllers.Controller controller = fake.connect(ADDRESS, A, HOST);
        fake.send(controller);
        assertThat(fake.unfinished(controller)).as("held by the slow device").isEqualTo(1);

        target.disallowHost(A, HOST);
        assertThat(fake.unfinished(controller)).as("the revoked host's requests once disallowHost returned").isZero();
    }

    /** The same for every path that removes a host: the exclusive allow and the re-applied export. */
    @Test
    void anExclusiveAllowAndAReappliedExportDrainTheHostsTheyRemove() throws Exception {
        export(A, DEVICE, PORT, ADDRESS, HOST, HOST2);
        FakeNvmetControllers.Controller other = fake.connect(ADDRESS, A, HOST2);
        fake.send(other);
        target.allowOnlyHost(A, HOST, Optional.empty());
        assertThat(fake.unfinished(other)).as("after the exclusive allow").isZero();

        target.allowHost(A, HOST2);
        FakeNvmetControllers.Controller again = fake.connect(ADDRESS, A, HOST2);
        fake.send(again);
        target.ensureExport(PORT, wanted(A, DEVICE, ADDRESS, HOST));
        assertThat(fake.unfinished(again)).as("after the re-applied export").isZero();
    }

    @Test
    void exportAndTeardownFollowTheKernelsOrder() {
        export(A, DEVICE, PORT, ADDRESS, HOST);
        String s = "subsystems/" + A;
        assertThat(fake.changes()).containsExactly(
                "mkdir " + s,
                "mkdir " + s + "/namespaces/1",
                "write " + s + "/namespaces/1/device_uuid " + ConfigfsNvmetTarget.namespaceUuid(A, NSID),
                "write " + s + "/namespaces/1/device_path " + DEVICE,
                "write " + s + "/namespaces/1/enable 1",
                "mkdir ports/60021",
                "write ports/60021/addr_trtype tcp",
                "write ports/60021/addr_adrfam ipv4",
                "write ports/60021/addr_traddr 127.0.0.1",
                "write ports/60021/addr_trsvcid 4481",
                "mkdir hosts/" + HOST,
                "symlink " + s + "/allowed_hosts/" + HOST + " -> hosts/" + HOST,
                "symlink ports/60021/subsystems/" + A + " -> " + s);

        int exported = fake.changes().size();
        export(A, DEVICE, PORT, ADDRESS, HOST);
        assertThat(fake.changes()).as("a second apply only reads").hasSize(exported);

        target.removeSubsystem(A);
        assertThat(fake.changes().subList(exported, fake.changes().size())).containsExactly(
                "unlink ports/60021/subsystems/" + A,
                "write " + s + "/namespaces/1/enable 0",
                "rmdir " + s + "/namespaces/1",
                "unlink " + s + "/allowed_hosts/" + HOST,
                "rmdir " + s,
                "rmdir ports/60021",
                "rmdir hosts/" + HOST);
    }

    @Test
    void aValueTheKernelReadsBackDifferentlyIsAnErrorNamingTheFile() {
        Path devicePath = fake.nvmet("subsystems/" + A + "/namespaces/1/device_path");
        fake.readsBack(devicePath, "/dev/vg0/pvc-other");
        target.ensureSubsystem(A, false);
        assertThatThrownBy(() -> target.ensureNamespace(A, NSID, DEVICE))
                .isInstanceOf(NvmetTargetException.class)
                .hasMessage("wrote '" + DEVICE + "' to " + devicePath + " but the kernel reads back '/dev/vg0/pvc-other'"
                        + " (it was '/dev/vg0/pvc-other')")
                .satisfies(e -> assertThat(((NvmetTargetException) e).path()).isEqualTo(devicePath))
                .satisfies(e -> assertThat(((NvmetTargetException) e).errno()).isEmpty());
        assertThat(fake.value("subsystems/" + A + "/namespaces/1/enable")).as("not enabled on a doubtful device")
                .contains("0");

        Path anyHost = fake.nvmet("subsystems/" + B + "/attr_allow_any_host");
        fake.readsBack(anyHost, "0");
        assertThatThrownBy(() -> target.ensureSubsystem(B, true))
                .isInstanceOf(NvmetTargetException.class)
                .hasMessageContaining(anyHost + " but the kernel reads back '0'");
    }

    static Stream<Arguments> hostileCalls() {
        return Stream.of(
                Arguments.of("relative device", call(t -> t.ensureNamespace(A, NSID, Path.of("dev/vg0/pvc-a")))),
                Arguments.of("device with ..", call(t -> t.ensureNamespace(A, NSID, Path.of("/dev/../etc/shadow")))),
                Arguments.of("device with a newline", call(t -> t.ensureNamespace(A, NSID, Path.of("/dev/vg0/a\n/dev/sda")))),
                Arguments.of("device with a space", call(t -> t.ensureNamespace(A, NSID, Path.of("/dev/vg0/a b")))),
                Arguments.of("device with a ;", call(t -> t.ensureNamespace(A, NSID, Path.of("/dev/vg0/a;reboot")))),
                Arguments.of("device ending in /", call(t -> t.ensureNamespace(A, NSID, Path.of("/")))),
                Arguments.of("NQN with a slash", call(t -> t.ensureSubsystem(Nqn.of("nqn.2024-06.io.pillar-csi:a/../../x"), false))),
                Arguments.of("NQN that is ..", call(t -> t.removeSubsystem(Nqn.of("..")))),
                Arguments.of("NQN too long", call(t -> t.ensureSubsystem(Nqn.of("nqn.2024-06.io.pillar-csi:" + "a".repeat(200)), false))),
                Arguments.of("host NQN with a NUL", call(t -> t.allowHost(A, Nqn.of("nqn.2014-08.org.nvmexpress:uuid:\0")))),
                Arguments.of("host name", call(t -> t.ensurePort(PORT, PortAddress.tcp("storage.example.com", 4420)))),
                Arguments.of("address with a zone", call(t -> t.ensurePort(PORT, PortAddress.tcp("fe80::1%eth0", 4420)))),
                Arguments.of("TCP port 0", call(t -> t.ensurePort(PORT, PortAddress.tcp("127.0.0.1", 0)))),
                Arguments.of("port id 70000", call(t -> t.ensurePort(PortId.of(70_000), ADDRESS))),
                Arguments.of("nsid 0", call(t -> t.revalidateSize(A, NamespaceId.of(0)))),
                Arguments.of("nsid 0xFFFFFFFF", call(t -> t.ensureNamespace(A, NamespaceId.of(0xFFFF_FFFFL), DEVICE))));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("hostileCalls")
    void hostileInputNeverReachesTheTree(String what, TargetCall call) {
        export(A, DEVICE, PORT, ADDRESS, HOST);
        String before = fake.dump();
        List<String> journal = fake.journal();
        assertThatThrownBy(() -> call.on(target)).isInstanceOf(InvalidValueException.class);
        assertThat(fake.journal()).as("no call reached configfs").isEqualTo(journal);
        assertThat(fake.dump()).isEqualTo(before);
    }

    @FunctionalInterface
    interface TargetCall {
        void on(ConfigfsNvmetTarget target);
    }

    private static TargetCall call(TargetCall call) {
        return call;
    }

    @Test
    void withoutNvmetEveryCallSaysWhy() {
        FakeConfigfsTree noNvmet = FakeConfigfsTree.withoutNvmet();
        ConfigfsNvmetTarget t = noNvmet.target();
        for (Runnable call : List.<Runnable>of(() -> t.ensureSubsystem(A, false), t::subsystems, () -> t.inspect(A),
                () -> t.linkPort(PORT, A))) {
            assertThatThrownBy(call::run).isInstanceOf(NvmetTargetException.class)
                    .hasMessageContaining("are the nvmet modules loaded (modprobe nvmet nvmet-tcp)");
        }
        t.removeSubsystem(A); // absent: succeeds
        assertThat(noNvmet.journal()).containsExactly("mkdir subsystems/" + A + ": ENOENT");
    }

    @Test
    void withoutConfigfsEveryCallSaysWhereToMountIt() {
        ConfigfsNvmetTarget t = FakeConfigfsTree.unmounted().target();
        assertThatThrownBy(t::subsystems).isInstanceOf(NvmetTargetException.class)
                .hasMessageContaining("is configfs mounted there (mount -t configfs none " + FakeConfigfsTree.DEFAULT_ROOT + ")");
        assertThatThrownBy(() -> t.ensurePort(PORT, ADDRESS)).isInstanceOf(NvmetTargetException.class)
                .hasMessageContaining("ENOENT").hasMessageContaining("mount -t configfs");
    }

    @Test
    void aNamespaceOnAMissingDeviceIsNotEnabled() {
        target.ensureSubsystem(A, false);
        assertThatThrownBy(() -> target.ensureNamespace(A, NSID, Path.of("/dev/vg0/gone")))
                .isInstanceOf(NvmetTargetException.class)
                .hasMessageContaining("ENOENT")
                .hasMessageContaining("the kernel could not open /dev/vg0/gone");
        assertThat(target.inspect(A).orElseThrow().namespaces())
                .containsExactly(new SubsystemState.Namespace(NSID, "/dev/vg0/gone", false));
    }

    @Test
    void concurrentExportsOnASharedPortAndHostConverge() throws Exception {
        List<Nqn> volumes = new ArrayList<>();
        for (int i = 0; i < 24; i++) {
            volumes.add(Nqn.of("nqn.2024-06.io.pillar-csi:contract-vol-" + i));
        }
        List<Callable<Void>> exports = volumes.stream().<Callable<Void>>map(v -> () -> {
            export(v, DEVICE, PORT, ADDRESS, HOST);
            return null;
        }).toList();
        runAll(exports);
        for (Nqn v : volumes) {
            assertThat(drift(wanted(v, DEVICE, ADDRESS, HOST))).as("drift of %s", v).isEmpty();
        }
        assertThat(fake.entries("ports")).containsExactly("60021");
        assertThat(fake.entries("hosts")).containsExactly(HOST.value());

        runAll(volumes.stream().<Callable<Void>>map(v -> () -> {
            target.removeSubsystem(v);
            return null;
        }).toList());
        assertThat(fake.entries("subsystems")).isEmpty();
        assertThat(fake.entries("ports")).isEmpty();
        assertThat(fake.entries("hosts")).isEmpty();
    }

    private static void runAll(List<Callable<Void>> calls) throws Exception {
        try (ExecutorService pool = Executors.newFixedThreadPool(8)) {
            for (Future<Void> f : pool.invokeAll(calls)) {
                f.get();
            }
        }
    }
}
