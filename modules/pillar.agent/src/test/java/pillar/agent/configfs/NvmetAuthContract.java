package pillar.agent.configfs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.Test;

import pillar.api.value.DhchapSecret;
import pillar.api.value.Nqn;

/**
 * {@link ConfigfsNvmetTarget} keeps the DH-HMAC-CHAP part of the {@link NvmetTarget} contract on a kernel
 * with nvmet authentication: keys written before the host is linked, only a host proving the right
 * secret connects (a wrong one and none are refused by the kernel), a rotation refuses the old secret on
 * a new connect, bidirectional authentication with a controller key, the kernel's own checks of a key
 * write, and drift that notices changed keys without showing them. {@link ConfigfsNvmetAuthFakeTest} runs
 * it on the fake, {@code NvmeAuthKernelIT} on the 6.12 kernel in the VM.
 */
abstract class NvmetAuthContract {
    static final Nqn A = NvmetTargetContract.A;
    static final Nqn HOST = NvmetTargetContract.HOST;
    static final PortId PORT = NvmetTargetContract.PORT;
    static final PortAddress ADDRESS = NvmetTargetContract.ADDRESS;
    static final NamespaceId NSID = NvmetTargetContract.NSID;
    static final DhchapSecret KEY_1 = secret(1, 0x11);
    static final DhchapSecret KEY_2 = secret(1, 0x22);
    static final DhchapSecret CTRL_1 = secret(1, 0x33);
    static final DhchapSecret CTRL_2 = secret(1, 0x44);

    private final ConfigfsNvmetTarget target;
    private final ConfigfsTree tree;
    private final Path configfs;
    private final Path device;

    /**
     * @param configfs where {@code tree} has configfs mounted; @param device a block device namespaces
     *                 can be enabled on
     */
    NvmetAuthContract(ConfigfsTree tree, Path configfs, Path device) {
        this.target = new ConfigfsNvmetTarget(configfs, tree);
        this.tree = tree;
        this.configfs = configfs;
        this.device = device;
    }

    /** The errno text of a connect without a secret to a target that asks for one: the fake's is the kernel's. */
    static String refusedWithoutKey() {
        return FakeNvmetAuth.NO_KEY;
    }

    /**
     * Asserts the kernel's refusal of a connect whose exchange fails (a wrong secret): EKEYREJECTED, or
     * EIO when 6.12's target tears the queue down before its failure1 reaches the host (the host then
     * gives up at its 60 s admin timeout, see {@link FakeNvmetAuth#REJECTED_LATE}).
     */
    static void assertRejected(ThrowingCallable connect, String what) {
        assertThatThrownBy(connect).as(what).isInstanceOf(IOException.class)
                .satisfies(e -> assertThat(e.getMessage()).containsAnyOf(FakeNvmetAuth.REJECTED, FakeNvmetAuth.REJECTED_LATE));
    }

    static DhchapSecret secret(int hh, int fill) {
        byte[] key = new byte[32];
        Arrays.fill(key, (byte) fill);
        return DhchapSecret.encode(hh, key);
    }

    ConfigfsNvmetTarget target() {
        return target;
    }

    ConfigfsTree tree() {
        return tree;
    }

    Path configfs() {
        return configfs;
    }

    Path device() {
        return device;
    }

    /**
     * The host connects presenting {@code hostSecret} as {@code dhchap_secret} and {@code ctrlSecret} as
     * {@code dhchap_ctrl_secret} ("" leaves the option out); the kernel's refusal is an {@link IOException}
     * with its errno text. Returns the controller, live.
     */
    abstract String connect(Nqn host, String hostSecret, String ctrlSecret) throws IOException;

    /** The host disconnects the controller. */
    abstract void disconnect(String controller) throws IOException;

    Path nvmet(String relative) {
        return configfs().resolve("nvmet").resolve(relative);
    }

    /** A subsystem with one namespace on the port, admitting {@code HOST} with {@code auth}. */
    void export(HostAuth auth) {
        target().ensureSubsystem(A, false);
        target().ensureNamespace(A, NSID, device());
        target().ensurePort(PORT, ADDRESS);
        target().allowHost(A, HOST, Optional.of(auth));
        target().linkPort(PORT, A);
    }

    SubsystemState.HostKeys keysOf(Nqn host) {
        return target().inspect(A).orElseThrow().hostKeys().get(host.value());
    }

    @Test
    void theKernelHasAuthAndTheProbeLeavesNoHostEntry() throws IOException {
        assertThat(target().authSupported()).isTrue();
        assertThat(tree().list(nvmet("hosts"))).noneMatch(h -> h.getFileName().toString()
                .equals(ConfigfsNvmetTarget.AUTH_PROBE_HOST));
    }

    @Test
    void onlyTheHostWithTheRightSecretConnects() throws IOException {
        export(HostAuth.oneWay(KEY_1));
        assertThat(keysOf(HOST)).isEqualTo(new SubsystemState.HostKeys(KEY_1.value(), "", "hmac(sha256)", "null"));

        assertThatThrownBy(() -> connect(HOST, "", "")).as("no secret").isInstanceOf(IOException.class)
                .hasMessageContaining(refusedWithoutKey());
        assertRejected(() -> connect(HOST, KEY_2.value(), ""), "a wrong secret");
        disconnect(connect(HOST, KEY_1.value(), ""));
    }

    @Test
    void aRotationRefusesTheOldSecretOnANewConnectAndAdmitsTheNew() throws IOException {
        export(HostAuth.oneWay(KEY_1));
        String before = connect(HOST, KEY_1.value(), "");
        target().allowHost(A, HOST, Optional.of(HostAuth.oneWay(KEY_2)));
        assertThat(keysOf(HOST).key()).isEqualTo(KEY_2.value());
        assertRejected(() -> connect(HOST, KEY_1.value(), ""), "the old secret");
        disconnect(connect(HOST, KEY_2.value(), ""));
        disconnect(before);
    }

    @Test
    void bidirectionalAuthenticationProvesTheControllerKeyAndOneWayClearsIt() throws IOException {
        export(HostAuth.oneWay(KEY_1).withControllerKey(CTRL_1));
        assertThat(keysOf(HOST).controllerKey()).isEqualTo(CTRL_1.value());
        assertRejected(() -> connect(HOST, KEY_1.value(), CTRL_2.value()), "the target proves another key");
        disconnect(connect(HOST, KEY_1.value(), CTRL_1.value()));

        target().allowHost(A, HOST, Optional.of(HostAuth.oneWay(KEY_1)));
        assertThat(keysOf(HOST).controllerKey()).as("one-way again").isEmpty();
    }

    @Test
    void hashAndGroupAreWrittenAndReadBack() {
        export(new HostAuth(KEY_1, Optional.empty(), "hmac(sha512)", "ffdhe2048"));
        assertThat(keysOf(HOST)).isEqualTo(new SubsystemState.HostKeys(KEY_1.value(), "", "hmac(sha512)", "ffdhe2048"));
    }

    @Test
    void aKeyWriteIsCheckedOnlyForItsFormAndTransform() throws IOException {
        target().ensureSubsystem(A, false);
        target().allowHost(A, HOST, Optional.of(HostAuth.oneWay(KEY_1)));
        Path key = nvmet("hosts").resolve(HOST.value()).resolve("dhchap_key");
        assertThatThrownBy(() -> tree().write(key, "DHHC-1:04:" + KEY_1.value().substring(10)))
                .as("transform 4").hasMessageContaining("Invalid argument");
        assertThatThrownBy(() -> tree().write(key, "secret")).as("not DHHC-1").hasMessageContaining("Invalid argument");
        assertThat(keysOf(HOST).key()).isEqualTo(KEY_1.value());
        String badCrc = KEY_1.value().substring(0, 12) + (KEY_1.value().charAt(12) == 'A' ? 'B' : 'A')
                + KEY_1.value().substring(13);
        tree().write(key, badCrc);
        assertThat(keysOf(HOST).key()).as("kept verbatim, refused only at connect").isEqualTo(badCrc);
    }

    @Test
    void driftNoticesChangedKeysWithoutShowingThem() throws IOException {
        WantedExport wanted = new WantedExport(A, NSID, device(), ADDRESS, true, Set.of(HOST),
                Map.of(HOST, HostAuth.oneWay(KEY_1).withControllerKey(CTRL_1)));
        target().ensureExport(PORT, wanted);
        assertThat(drift(wanted)).isEmpty();

        Path entry = nvmet("hosts").resolve(HOST.value());
        tree().write(entry.resolve("dhchap_key"), KEY_2.value());
        tree().write(entry.resolve("dhchap_hash"), "hmac(sha384)");
        List<String> drift = drift(wanted);
        assertThat(drift).containsExactly("host " + HOST + ": its DH-HMAC-CHAP key differs from the record",
                "host " + HOST + ": dhchap_hash is hmac(sha384), wanted hmac(sha256)");
        assertThat(String.join(" ", drift) + target().inspect(A).orElseThrow())
                .doesNotContain(KEY_1.value().substring(10, 40)).doesNotContain(KEY_2.value().substring(10, 40))
                .doesNotContain(CTRL_1.value().substring(10, 40));

        target().ensureExport(PORT, wanted);
        assertThat(drift(wanted)).as("re-applied").isEmpty();
    }

    List<String> drift(WantedExport wanted) {
        return target().inspect(wanted.subsystem()).map(actual -> ExportDrift.of(wanted, actual))
                .orElseGet(() -> ExportDrift.missing(wanted));
    }
}
