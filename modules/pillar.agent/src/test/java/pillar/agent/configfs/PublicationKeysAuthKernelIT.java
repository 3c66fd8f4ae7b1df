package pillar.agent.configfs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import pillar.api.context.PublicationHost;
import pillar.api.value.DhchapSecret;
import pillar.api.value.Nqn;
import pillar.runtime.exec.Command;
import pillar.runtime.exec.SystemProcessRunner;

/**
 * Per-publication DH-HMAC-CHAP keys on the 6.12 kernel (VM, {@code dev/kernel-it --kernel 6.12}), seen
 * from the host side of the wire. Each publication (node, volume) is admitted as its own host NQN
 * ({@link PublicationHost}) with its own keys, as the controller publishes it.
 *
 * <p>Borrowing: node A holds everything kubelet can give it (its own publication's NQN and keys, the
 * node NQNs of A and B from their CSINodes, the volume IDs); with any of it, every connect to a volume
 * published only to B is refused by the target, and B's own publication connects (the refusals are not
 * a broken bed). Rotation: a node's later publication gets new keys on its own host entry, so an older
 * volume's port bounce (another node's unpublish relinks the port) reconnects with the keys it has and
 * its writes go on; the same bounce with one host entry per node and a rotated key (the scheme before)
 * loses the volume, which shows the bounce is real. Fails (never skips) on a kernel without nvmet auth.
 */
class PublicationKeysAuthKernelIT {
    private static final PortId PORT = PortId.of(60_061);
    private static final PortAddress ADDRESS = PortAddress.tcp("127.0.0.1", 4493);
    private static final NamespaceId NSID = NamespaceId.of(1);
    private static final String NODE_A = "nqn.2014-08.org.nvmexpress:uuid:contract-keys-node-a";
    private static final String NODE_B = "nqn.2014-08.org.nvmexpress:uuid:contract-keys-node-b";
    private static final Nqn SHARED = Nqn.of("nqn.2024-06.io.pillar-csi:contract-keys-shared");
    private static final Nqn B_ONLY = Nqn.of("nqn.2024-06.io.pillar-csi:contract-keys-b-only");
    private static final Nqn OLDER = Nqn.of("nqn.2024-06.io.pillar-csi:contract-keys-older");
    private static final Nqn NEWER = Nqn.of("nqn.2024-06.io.pillar-csi:contract-keys-newer");
    /** Retry every second; a lost controller is given up after 20 s (the bounce's reconnect needs one or two). */
    private static final String HOST_OPTIONS = "reconnect_delay=1,ctrl_loss_tmo=20";
    private static final Duration WRITE_DEADLINE = Duration.ofSeconds(90);
    private static final SystemProcessRunner RUNNER = new SystemProcessRunner();

    @TempDir
    static Path work;
    private static final Map<Nqn, Path> LOOPS = new LinkedHashMap<>();

    private final ConfigfsTree tree = new KernelConfigfsTree();
    private final ConfigfsNvmetTarget target = new ConfigfsNvmetTarget(KernelBed.CONFIGFS, tree);
    private final FabricsInitiator initiator = new FabricsInitiator(Path.of("/dev"), Path.of("/sys"));
    private final SecureRandom random = new SecureRandom();
    private final List<String> controllers = new ArrayList<>();
    private final List<String> hostEntries = new ArrayList<>();

    @BeforeAll
    static void bed() throws IOException {
        KernelBed.requireVm();
        assertThat(KernelBed.hasNvmetAuth()).as("kernel %s has no nvmet authentication: run with --kernel 6.12",
                System.getProperty("os.version")).isTrue();
        for (Nqn volume : List.of(SHARED, B_ONLY, OLDER, NEWER)) {
            LOOPS.put(volume, KernelBed.loopDevice(work, volume.value().replace(':', '-'), 16L << 20));
        }
    }

    @AfterEach
    void removeWhatTheTestMade() throws IOException, InterruptedException {
        for (String controller : controllers) {
            initiator.disconnect(controller, Duration.ofSeconds(30));
        }
        List<String> problems = TreeWalk.wipe(tree, KernelBed.CONFIGFS.resolve("nvmet"),
                name -> ConfigfsTreeContract.OURS.test(name) || hostEntries.contains(name));
        assertThat(problems).as("what the clean-up could not remove").isEmpty();
    }

    @AfterAll
    static void detach() {
        LOOPS.values().forEach(KernelBed::detach);
    }

    @Test
    void nodeAWithEverythingKubeletGivesItCannotConnectToAVolumePublishedOnlyToB() throws Exception {
        Publication aShared = publication(NODE_A, SHARED);
        Publication bShared = publication(NODE_B, SHARED);
        Publication bOnly = publication(NODE_B, B_ONLY);
        export(SHARED, aShared, bShared);
        export(B_ONLY, bOnly);

        // what A holds: its own publish context (NQN and keys), both node NQNs, the volume IDs; the shared
        // volume's stage Secret holds no key of a publication made so
        List<Nqn> asWhom = List.of(Nqn.of(NODE_A), Nqn.of(NODE_B), aShared.host, PublicationHost.nqn(NODE_A, B_ONLY.value()),
                bShared.host, bOnly.host);
        List<String> refusals = new ArrayList<>();
        for (Nqn host : asWhom) {
            refusals.add(refused(B_ONLY, host, ",dhchap_secret=" + aShared.key.value() + ",dhchap_ctrl_secret="
                    + aShared.ctrlKey.value()));
        }
        refusals.add(refused(B_ONLY, bOnly.host, ""));
        refusals.add(refused(SHARED, bShared.host, ",dhchap_secret=" + aShared.key.value()));
        refusals.forEach(r -> System.out.println("[keys-kernel-it] refused: " + r));
        System.out.println("[keys-kernel-it] the kernel's log of them: " + kernelLog().lines()
                .filter(l -> l.contains("nvmet") || l.contains("contract-keys")).toList());
        assertThat(refusals).hasSize(asWhom.size() + 2);

        // the owners' own keys connect: the refusals above are the target's judgement, not a broken bed
        connect(B_ONLY, bOnly);
        connect(SHARED, aShared);
        connect(SHARED, bShared);
        assertThat(initiator.controllersOf(B_ONLY)).as("only B's own connect reached the volume published to B")
                .hasSize(1);
    }

    @Test
    void aLaterPublicationsNewKeysLeaveTheOlderVolumeWhichReconnectsAfterABounceAndWritesOn() throws Exception {
        Publication older = publication(NODE_A, OLDER);
        Publication otherNode = publication(NODE_B, OLDER);
        export(OLDER, older, otherNode);
        String controller = connect(OLDER, older);
        Path device = initiator.awaitHead(OLDER, NSID, Duration.ofSeconds(30));
        BlockWrites writes = new BlockWrites(Files.createDirectories(work.resolve("older")));
        Random blocks = new Random();
        byte[] before = BlockWrites.block(1, blocks);
        assertThat(writes.write(device, 1, before, WRITE_DEADLINE)).as("the first write").isTrue();
        long reconnectsBefore = reconnects(controller);

        // A's keys renewed: a later publication to A gets new keys, on its own host entry
        Publication newer = publication(NODE_A, NEWER);
        export(NEWER, newer);
        assertThat(target.inspect(OLDER).orElseThrow().hostKeys().get(older.host.value()).key())
                .as("the older publication's key on the target").isEqualTo(older.key.value());
        // B's unpublish of the older volume relinks its port: A's controller is dropped and reconnects
        target.disallowHost(OLDER, otherNode.host);

        byte[] after = BlockWrites.block(2, blocks);
        assertThat(writes.write(device, 2, after, WRITE_DEADLINE)).as("a write after the bounce").isTrue();
        awaitLive(controller);
        assertThat(reconnects(controller)).as("the host's 'Successfully reconnected' lines for %s", controller)
                .isGreaterThan(reconnectsBefore);
        assertThat(BlockWrites.read(device, 1)).isEqualTo(before);
        assertThat(BlockWrites.read(device, 2)).isEqualTo(after);
        System.out.println("[keys-kernel-it] the older volume reconnected after the bounce and its writes went on: "
                + kernelLog().lines().filter(l -> l.contains(controller + ":")).toList());
    }

    /** The scheme before: one host entry per node, whose key a rotation rewrites; the bounce loses the older volume. */
    @Test
    void withOneHostEntryPerNodeARotationLosesTheOlderVolumeAtTheBounce() throws Exception {
        Nqn nodeA = Nqn.of(NODE_A);
        Publication node = new Publication(nodeA, secret(), secret());
        Publication otherNode = publication(NODE_B, OLDER);
        export(OLDER, node, otherNode);
        connect(OLDER, node, "reconnect_delay=1,ctrl_loss_tmo=5");
        Path device = initiator.awaitHead(OLDER, NSID, Duration.ofSeconds(30));
        BlockWrites writes = new BlockWrites(Files.createDirectories(work.resolve("before")));
        Random blocks = new Random();
        assertThat(writes.write(device, 1, BlockWrites.block(1, blocks), WRITE_DEADLINE)).isTrue();

        // the rotation as it was: the node's one host entry gets the node's new key (the other volumes' export)
        target.allowHost(OLDER, nodeA, Optional.of(HostAuth.oneWay(secret()).withControllerKey(secret())));
        target.disallowHost(OLDER, otherNode.host);

        assertThat(writes.write(device, 2, BlockWrites.block(2, blocks), WRITE_DEADLINE))
                .as("a write of the older volume after the rotation and the bounce").isFalse();
        System.out.println("[keys-kernel-it] with one key per node the older volume's write failed after the bounce: "
                + kernelLog().lines().filter(l -> l.contains("nvme")).skip(Math.max(0, kernelLog().lines()
                        .filter(l -> l.contains("nvme")).count() - 8)).toList());
    }

    private record Publication(Nqn host, DhchapSecret key, DhchapSecret ctrlKey) {
        HostAuth auth() {
            return HostAuth.oneWay(key).withControllerKey(ctrlKey);
        }
    }

    private Publication publication(String node, Nqn volume) {
        Nqn host = PublicationHost.nqn(node, volume.value());
        hostEntries.add(host.value());
        return new Publication(host, secret(), secret());
    }

    private DhchapSecret secret() {
        byte[] key = new byte[32];
        random.nextBytes(key);
        return DhchapSecret.encode(0, key);
    }

    private void export(Nqn volume, Publication... publications) {
        Map<Nqn, HostAuth> auth = new LinkedHashMap<>();
        for (Publication p : publications) {
            auth.put(p.host, p.auth());
        }
        target.ensureExport(PORT, new WantedExport(volume, NSID, LOOPS.get(volume), ADDRESS, true, auth.keySet(), auth));
    }

    private String connect(Nqn volume, Publication as) throws IOException {
        return connect(volume, as, HOST_OPTIONS);
    }

    private String connect(Nqn volume, Publication as, String options) throws IOException {
        String name = initiator.connect(ADDRESS, volume, as.host, options + ",dhchap_secret=" + as.key.value()
                + ",dhchap_ctrl_secret=" + as.ctrlKey.value()).name();
        controllers.add(name);
        return name;
    }

    /** The connect's refusal as the kernel words it; fails the test when the connect succeeds. */
    private String refused(Nqn volume, Nqn host, String secrets) {
        long start = System.nanoTime();
        Throwable[] thrown = new Throwable[1];
        assertThatThrownBy(() -> {
            try {
                controllers.add(initiator.connect(ADDRESS, volume, host, "reconnect_delay=1,ctrl_loss_tmo=2" + secrets).name());
            } catch (IOException e) {
                thrown[0] = e;
                throw e;
            }
        }).as("A connecting to %s as %s", volume, host).isInstanceOf(IOException.class);
        return "as " + host + " to " + volume + " after " + (System.nanoTime() - start) / 1_000_000 + " ms: "
                + thrown[0].getMessage();
    }

    private long reconnects(String controller) {
        return kernelLog().lines().filter(l -> l.contains(controller + ": Successfully reconnected")).count();
    }

    private static String kernelLog() {
        return RUNNER.run(Command.of(Duration.ofSeconds(30), "dmesg")).stdout();
    }

    private String[] awaitLive(String controller) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (true) {
            Optional<String[]> state = initiator.stateOf(controller);
            assertThat(state).as("controller %s still exists", controller).isPresent();
            if (state.get()[0].equals("live")) {
                return state.get();
            }
            assertThat(System.nanoTime()).as("%s live again within 30 s, is %s", controller, state.get()[0])
                    .isLessThan(deadline);
            Thread.sleep(100);
        }
    }
}
