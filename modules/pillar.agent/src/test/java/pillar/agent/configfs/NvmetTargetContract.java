package pillar.agent.configfs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Predicate;

import org.junit.jupiter.api.Test;

import pillar.api.value.Nqn;

/**
 * {@link ConfigfsNvmetTarget} keeps the {@link NvmetTarget} contract: exports and tears down in the
 * kernel's order, converges when applied twice, shares ports and host entries and removes them only
 * when unused, refuses what the kernel would refuse without changing anything, and reads back what the
 * kernel holds. {@link ConfigfsNvmetTargetFakeTest} runs it on the fake tree,
 * {@link ConfigfsNvmetTargetKernelIT} on the kernel in the VM.
 */
abstract class NvmetTargetContract {
    static final Nqn A = Nqn.of("nqn.2024-06.io.pillar-csi:contract-vol-a");
    static final Nqn B = Nqn.of("nqn.2024-06.io.pillar-csi:contract-vol-b");
    static final Nqn HOST = Nqn.of("nqn.2014-08.org.nvmexpress:uuid:contract-host-1");
    static final Nqn HOST2 = Nqn.of("nqn.2014-08.org.nvmexpress:uuid:contract-host-2");
    static final PortId PORT = PortId.of(60_021);
    static final PortId PORT2 = PortId.of(60_022);
    static final PortAddress ADDRESS = PortAddress.tcp("127.0.0.1", 4481);
    static final PortAddress OTHER_ADDRESS = PortAddress.tcp("127.0.0.1", 4482);
    static final NamespaceId NSID = NamespaceId.of(1);
    /** How long the kernel's host may take to notice a drop or to reconnect (reconnect_delay is 1 s). */
    static final Duration SETTLE = Duration.ofSeconds(10);

    abstract ConfigfsNvmetTarget target();

    /** Whether this kernel's nvmet has DH-HMAC-CHAP: Debian's 6.1 has not (the auth cases are {@link NvmetAuthContract}). */
    abstract boolean kernelHasAuth();

    abstract ConfigfsTree tree();

    abstract Path configfs();

    /** Block devices namespaces can be enabled on. */
    abstract Path device();

    abstract Path otherDevice();

    /**
     * A host connects to the subsystem at {@code address} and gets a controller (its name); the
     * target's refusal is an {@link IOException}. On the kernel the host reconnects every second and
     * gives up after a few.
     */
    abstract String connect(PortAddress address, Nqn subsystem, Nqn host) throws IOException;

    /** What the host sees of its controller now; empty once the host has removed it. */
    abstract Optional<Seen> look(String controller) throws IOException;

    /** A controller as its host sees it: {@code live} (it can do I/O) or not, and the target's controller id. */
    record Seen(String state, int cntlid) {
        boolean live() {
            return state.equals("live");
        }
    }

    /** Waits (the kernel's host reacts asynchronously) until what the host sees passes {@code until}. */
    Optional<Seen> await(String controller, Predicate<Optional<Seen>> until, String what)
            throws IOException, InterruptedException {
        long deadline = System.nanoTime() + SETTLE.toNanos();
        while (true) {
            Optional<Seen> seen = look(controller);
            if (until.test(seen)) {
                return seen;
            }
            assertThat(System.nanoTime()).as("%s within %s; %s sees %s", what, SETTLE, controller, seen)
                    .isLessThan(deadline);
            Thread.sleep(100);
        }
    }

    /** Longer than the host's reconnect_delay, so that a drop would show by now; the fake's host reacts at once. */
    void letTheHostReact() throws InterruptedException {
        Thread.sleep(1_500);
    }

    static boolean notLive(Optional<Seen> seen) {
        return seen.map(s -> !s.live()).orElse(true);
    }

    Path nvmet(String relative) {
        return configfs().resolve("nvmet").resolve(relative);
    }

    /** What the agent's Exporter does for a record: ACL when hosts are given, else any host. */
    void export(Nqn subsystem, Path device, PortId port, PortAddress address, Nqn... hosts) {
        target().ensureSubsystem(subsystem, hosts.length == 0);
        target().ensureNamespace(subsystem, NSID, device);
        target().ensurePort(port, address);
        for (Nqn host : hosts) {
            target().allowHost(subsystem, host);
        }
        target().linkPort(port, subsystem);
    }

    WantedExport wanted(Nqn subsystem, Path device, PortAddress address, Nqn... hosts) {
        return new WantedExport(subsystem, NSID, device, address, hosts.length > 0, Set.of(hosts));
    }

    List<String> drift(WantedExport wanted) {
        return target().inspect(wanted.subsystem()).map(actual -> ExportDrift.of(wanted, actual))
                .orElseGet(() -> ExportDrift.missing(wanted));
    }

    /** The test's subsystems, ports and hosts, with everything in them. */
    String ours() throws IOException {
        StringBuilder out = new StringBuilder();
        for (String dir : List.of("subsystems", "ports", "hosts")) {
            for (Path entry : tree().list(nvmet(dir))) {
                if (ConfigfsTreeContract.OURS.test(entry.getFileName().toString())) {
                    out.append(dir).append('/').append(entry.getFileName()).append("/\n")
                            .append(TreeWalk.snapshot(tree(), entry));
                }
            }
        }
        return out.toString();
    }

    @Test
    void anExportIsWhatInspectReadsAndTeardownLeavesNothing() throws IOException {
        export(A, device(), PORT, ADDRESS, HOST);
        assertThat(target().inspect(A)).contains(new SubsystemState(A, false,
                List.of(new SubsystemState.Namespace(NSID, device().toString(), true)), List.of(HOST.value()),
                List.of(new SubsystemState.LinkedPort(PORT, "tcp", "ipv4", "127.0.0.1", "4481"))));
        assertThat(target().subsystems()).contains(A).doesNotContain(B);
        assertThat(drift(wanted(A, device(), ADDRESS, HOST))).isEmpty();

        target().removeSubsystem(A);
        assertThat(target().inspect(A)).isEmpty();
        assertThat(target().subsystems()).doesNotContain(A);
        assertThat(drift(wanted(A, device(), ADDRESS, HOST))).containsExactly("subsystem " + A + " missing");
        assertThat(ours()).isEmpty();
    }

    /**
     * A target wiped (a reboot) and exported again shows the same namespace UUID: a connected host
     * compares it when it reconnects, and drops a namespace whose identifiers changed.
     */
    @Test
    void theNamespaceUuidIsTheSameOnEveryExport() throws IOException {
        export(A, device(), PORT, ADDRESS, HOST);
        String first = tree().read(nvmet("subsystems/" + A + "/namespaces/1/device_uuid")).strip();
        assertThat(first).isEqualTo(ConfigfsNvmetTarget.namespaceUuid(A, NSID));
        target().removeSubsystem(A);
        export(A, device(), PORT, ADDRESS, HOST);
        assertThat(tree().read(nvmet("subsystems/" + A + "/namespaces/1/device_uuid")).strip()).isEqualTo(first);
        assertThat(ConfigfsNvmetTarget.namespaceUuid(B, NSID)).as("another volume's").isNotEqualTo(first);
        target().removeSubsystem(A);
        assertThat(ours()).isEmpty();
    }

    @Test
    void anyHostExportIsReadBackAndTornDown() throws IOException {
        export(B, otherDevice(), PORT, ADDRESS);
        SubsystemState state = target().inspect(B).orElseThrow();
        assertThat(state.allowAnyHost()).isTrue();
        assertThat(state.allowedHosts()).isEmpty();
        assertThat(drift(wanted(B, otherDevice(), ADDRESS))).isEmpty();
        assertThat(drift(wanted(B, otherDevice(), ADDRESS, HOST))).containsExactly(
                "any host may connect, wanted only the allowed hosts", "host " + HOST + " not allowed but wanted");
        target().removeSubsystem(B);
        assertThat(ours()).isEmpty();
    }

    @Test
    void applyingTwiceChangesNothingAndRemovingTwiceSucceeds() throws IOException {
        export(A, device(), PORT, ADDRESS, HOST);
        String once = ours();
        export(A, device(), PORT, ADDRESS, HOST);
        assertThat(ours()).isEqualTo(once);
        target().removeSubsystem(A);
        target().removeSubsystem(A);
        target().removeSubsystem(B); // never existed
        target().disallowHost(B, HOST);
        assertThat(ours()).isEmpty();
    }

    @Test
    void aSubsystemLinkedToThePortUnderAnotherNameIsFoundAndNotLinkedTwice() throws IOException {
        export(A, device(), PORT, ADDRESS, HOST);
        Path links = nvmet("ports/60021/subsystems");
        tree().unlink(links.resolve(A.value()));
        tree().symlink(links.resolve("contract-another-name"), nvmet("subsystems").resolve(A.value()));

        target().linkPort(PORT, A); // the kernel refuses a second link of A (EEXIST): already linked
        assertThat(tree().list(links)).extracting(p -> p.getFileName().toString()).containsExactly("contract-another-name");
        assertThat(target().inspect(A).orElseThrow().ports()).extracting(SubsystemState.LinkedPort::id).containsExactly(PORT);
        assertThat(drift(wanted(A, device(), ADDRESS, HOST))).isEmpty();
        target().removeSubsystem(A);
        assertThat(ours()).isEmpty();
    }

    @Test
    void sharedPortAndHostOutliveTheFirstSubsystemAndGoWithTheLast() throws IOException {
        export(A, device(), PORT, ADDRESS, HOST);
        export(B, otherDevice(), PORT, ADDRESS, HOST);
        assertThat(tree().list(nvmet("ports")).stream().filter(p -> p.getFileName().toString().equals("60021")))
                .hasSize(1);

        target().removeSubsystem(A);
        assertThat(tree().kind(nvmet("ports/60021"))).isEqualTo(ConfigfsTree.Kind.DIRECTORY);
        assertThat(tree().kind(nvmet("hosts").resolve(HOST.value()))).isEqualTo(ConfigfsTree.Kind.DIRECTORY);
        assertThat(drift(wanted(B, otherDevice(), ADDRESS, HOST))).isEmpty();

        target().removeSubsystem(B);
        assertThat(ours()).isEmpty();
    }

    @Test
    void aLivePortKeepsItsAddressAndNothingChanges() throws IOException {
        export(A, device(), PORT, ADDRESS, HOST);
        String before = ours();
        assertThatThrownBy(() -> target().ensurePort(PORT, OTHER_ADDRESS))
                .isInstanceOf(NvmetTargetException.class)
                .hasMessageContaining("is live")
                .hasMessageContaining("addr_trsvcid is '4481', wanted '4482'");
        assertThat(ours()).isEqualTo(before);
    }

    @Test
    void anEnabledNamespaceKeepsItsDeviceAndNothingChanges() throws IOException {
        export(A, device(), PORT, ADDRESS, HOST);
        String before = ours();
        assertThatThrownBy(() -> target().ensureNamespace(A, NSID, otherDevice()))
                .isInstanceOf(NvmetTargetException.class)
                .hasMessageContaining("does not change the device of an enabled namespace");
        assertThat(ours()).isEqualTo(before);
    }

    @Test
    void aSubsystemThatAdmitsAnyHostTakesNoHostEntries() throws IOException {
        target().ensureSubsystem(A, true);
        String before = ours();
        assertThatThrownBy(() -> target().allowHost(A, HOST))
                .isInstanceOf(NvmetTargetException.class)
                .hasMessageContaining("allows any host");
        assertThat(ours()).as("not even hosts/%s", HOST).isEqualTo(before);

        target().ensureSubsystem(A, false);
        target().allowHost(A, HOST);
        assertThatThrownBy(() -> target().ensureSubsystem(A, true))
                .isInstanceOf(NvmetTargetException.class)
                .hasMessageContaining("EINVAL")
                .hasMessageContaining("allowed_hosts has entries")
                .satisfies(e -> assertThat(((NvmetTargetException) e).errno()).contains(Errno.EINVAL));
    }

    @Test
    void aHostEntryGoesWhenNoSubsystemAdmitsIt() throws IOException {
        export(A, device(), PORT, ADDRESS, HOST, HOST2);
        export(B, otherDevice(), PORT, ADDRESS, HOST);
        target().disallowHost(A, HOST);
        assertThat(tree().kind(nvmet("hosts").resolve(HOST.value()))).as("B still admits it")
                .isEqualTo(ConfigfsTree.Kind.DIRECTORY);
        target().disallowHost(A, HOST2);
        assertThat(tree().kind(nvmet("hosts").resolve(HOST2.value()))).isEqualTo(ConfigfsTree.Kind.ABSENT);
        target().disallowHost(A, HOST2);
        assertThat(target().inspect(A).orElseThrow().allowedHosts()).isEmpty();
        assertThat(target().inspect(B).orElseThrow().allowedHosts()).containsExactly(HOST.value());
    }

    @Test
    void revalidatingNeedsAnEnabledNamespace() {
        export(A, device(), PORT, ADDRESS, HOST);
        target().revalidateSize(A, NSID);
        assertThatThrownBy(() -> target().revalidateSize(A, NamespaceId.of(2)))
                .isInstanceOf(NvmetTargetException.class).hasMessageContaining("does not exist");
    }

    @Test
    void twoPortsOnOneAddressAreRefusedWhenTheSecondStarts() throws IOException {
        export(A, device(), PORT, ADDRESS);
        target().ensureSubsystem(B, true);
        target().ensurePort(PORT2, ADDRESS); // not listening yet: the kernel accepts the address
        assertThatThrownBy(() -> target().linkPort(PORT2, B))
                .isInstanceOf(NvmetTargetException.class)
                .hasMessageContaining("EADDRINUSE")
                .hasMessageContaining("the TCP port free")
                .satisfies(e -> assertThat(((NvmetTargetException) e).errno()).contains(Errno.EADDRINUSE));
        assertThat(tree().list(nvmet("ports/60022/subsystems"))).isEmpty();
    }

    @Test
    void inspectReportsWhatSomeoneElseChanged() throws IOException {
        export(A, device(), PORT, ADDRESS, HOST);
        Path subsystem = nvmet("subsystems").resolve(A.value());
        tree().unlink(nvmet("ports/60021/subsystems").resolve(A.value()));
        tree().write(subsystem.resolve("namespaces/1/enable"), "0");
        tree().mkdir(nvmet("hosts").resolve(HOST2.value()));
        tree().symlink(subsystem.resolve("allowed_hosts/extra"), nvmet("hosts").resolve(HOST2.value()));
        target().ensurePort(PORT2, OTHER_ADDRESS);
        target().linkPort(PORT2, A);

        assertThat(drift(wanted(A, device(), ADDRESS, HOST))).containsExactly(
                "namespace 1 disabled",
                "host " + HOST2 + " allowed but not wanted",
                "not linked to port tcp://127.0.0.1:4481",
                "linked to port 60022 at tcp://127.0.0.1:4482 but not wanted");
        assertThat(drift(wanted(A, otherDevice(), ADDRESS, HOST))).contains(
                "namespace 1 points at " + device() + ", wanted " + otherDevice());

        export(A, device(), PORT, ADDRESS, HOST); // re-applying repairs what it owns; it adds, never removes
        assertThat(drift(wanted(A, device(), ADDRESS, HOST))).containsExactly(
                "host " + HOST2 + " allowed but not wanted",
                "linked to port 60022 at tcp://127.0.0.1:4482 but not wanted");
    }

    @Test
    void ensureExportRemovesWhatTheExportDoesNotListAndLeavesOthersAlone() throws IOException {
        export(A, device(), PORT, ADDRESS, HOST);
        export(B, otherDevice(), PORT, ADDRESS, HOST); // shares the port and the host entry
        Path subsystem = nvmet("subsystems").resolve(A.value());
        target().allowHost(A, HOST2);
        target().ensurePort(PORT2, OTHER_ADDRESS);
        target().linkPort(PORT2, A);
        tree().mkdir(subsystem.resolve("namespaces/2"));
        tree().write(subsystem.resolve("namespaces/1/enable"), "0");
        assertThat(drift(wanted(A, device(), ADDRESS, HOST))).hasSize(4);

        target().ensureExport(PORT, wanted(A, device(), ADDRESS, HOST));
        assertThat(drift(wanted(A, device(), ADDRESS, HOST))).isEmpty();
        assertThat(tree().kind(nvmet("hosts").resolve(HOST2.value()))).as("admitted by nobody now").isEqualTo(ConfigfsTree.Kind.ABSENT);
        assertThat(tree().kind(nvmet("ports/60022"))).as("linked nothing else").isEqualTo(ConfigfsTree.Kind.ABSENT);
        assertThat(drift(wanted(B, otherDevice(), ADDRESS, HOST))).as("B is untouched").isEmpty();
        String converged = ours();
        target().ensureExport(PORT, wanted(A, device(), ADDRESS, HOST));
        assertThat(ours()).as("a second call changes nothing").isEqualTo(converged);

        // alone on its port: the namespace is pointed elsewhere, the ACL dropped, the port moved
        target().removeSubsystem(B);
        target().ensureExport(PORT, wanted(A, otherDevice(), OTHER_ADDRESS));
        assertThat(drift(wanted(A, otherDevice(), OTHER_ADDRESS))).isEmpty();
        assertThat(tree().kind(nvmet("hosts").resolve(HOST.value()))).isEqualTo(ConfigfsTree.Kind.ABSENT);
        assertThat(target().inspect(A).orElseThrow().ports())
                .containsExactly(new SubsystemState.LinkedPort(PORT, "tcp", "ipv4", "127.0.0.1", "4482"));

        target().removeSubsystem(A);
        assertThat(ours()).isEmpty();
    }

    @Test
    void ensureExportDoesNotMoveAPortOtherSubsystemsUse() throws IOException {
        export(A, device(), PORT, ADDRESS, HOST);
        export(B, otherDevice(), PORT, ADDRESS);
        assertThatThrownBy(() -> target().ensureExport(PORT, wanted(A, device(), OTHER_ADDRESS, HOST)))
                .isInstanceOf(NvmetTargetException.class)
                .hasMessageContaining("is live");
        assertThat(drift(wanted(B, otherDevice(), ADDRESS))).as("B keeps its port").isEmpty();
        assertThat(target().inspect(A).orElseThrow().ports()).as("A lost the link it no longer wants").isEmpty();
        assertThat(drift(wanted(A, device(), ADDRESS, HOST))).containsExactly("not linked to port tcp://127.0.0.1:4481");
    }

    /**
     * The fence: disallowing a host drops its live controller and it cannot connect again, while a
     * host still allowed reconnects by itself (a new controller id: it was dropped too).
     */
    @Test
    void aRevokedHostLosesItsControllerAndAnAllowedOneReconnects() throws Exception {
        export(A, device(), PORT, ADDRESS, HOST, HOST2);
        String revoked = connect(ADDRESS, A, HOST);
        String kept = connect(ADDRESS, A, HOST2);
        int keptId = look(kept).orElseThrow().cntlid();

        target().disallowHost(A, HOST);
        await(revoked, NvmetTargetContract::notLive, "the revoked host's controller stops being live");
        await(kept, s -> s.filter(Seen::live).filter(k -> k.cntlid() != keptId).isPresent(),
                "the allowed host reconnects with a new controller");
        assertThatThrownBy(() -> connect(ADDRESS, A, HOST)).as("a new connect of the revoked host")
                .isInstanceOf(IOException.class);
        assertThat(notLive(look(revoked))).as("the revoked controller after its reconnects").isTrue();
        assertThat(drift(wanted(A, device(), ADDRESS, HOST2))).as("the export is whole again").isEmpty();
    }

    /**
     * Removing the {@code allowed_hosts} link alone (the first step of a disallow that crashed before
     * the re-link) leaves a live controller live; the retried disallow drops it.
     */
    @Test
    void aDisallowRetriedAfterTheHostLinkWentStillDisconnects() throws Exception {
        export(A, device(), PORT, ADDRESS, HOST);
        String controller = connect(ADDRESS, A, HOST);
        int id = look(controller).orElseThrow().cntlid();
        tree().unlink(nvmet("subsystems").resolve(A.value()).resolve("allowed_hosts").resolve(HOST.value()));
        letTheHostReact();
        assertThat(look(controller)).as("the kernel keeps a live controller whose host is no longer allowed")
                .contains(new Seen("live", id));

        target().disallowHost(A, HOST);
        await(controller, NvmetTargetContract::notLive, "the retried disallow drops the controller");
        assertThatThrownBy(() -> connect(ADDRESS, A, HOST)).isInstanceOf(IOException.class);
    }

    /**
     * An exclusive allow leaves the host alone on the subsystem, whatever an earlier deny did: another
     * host still listed, and one whose link went without the re-link, both lose their live controllers
     * and cannot connect again; the drain's port is gone afterwards.
     */
    @Test
    void anExclusiveAllowLeavesOnlyThatHostAndDropsEveryOther() throws Exception {
        Nqn third = Nqn.of("nqn.2014-08.org.nvmexpress:uuid:contract-host-3");
        export(A, device(), PORT, ADDRESS, HOST, HOST2, third);
        String listed = connect(ADDRESS, A, HOST2);
        String unlisted = connect(ADDRESS, A, third);
        tree().unlink(nvmet("subsystems").resolve(A.value()).resolve("allowed_hosts").resolve(third.value()));

        target().allowOnlyHost(A, HOST, Optional.empty());
        assertThat(target().inspect(A).orElseThrow().allowedHosts()).containsExactly(HOST.value());
        await(listed, NvmetTargetContract::notLive, "the other listed host's controller stops being live");
        await(unlisted, NvmetTargetContract::notLive, "the unlisted host's controller stops being live");
        assertThatThrownBy(() -> connect(ADDRESS, A, HOST2)).isInstanceOf(IOException.class);
        assertThat(tree().list(nvmet("ports"))).as("the drain's port is removed again")
                .noneMatch(p -> p.getFileName().toString().equals(ConfigfsNvmetTarget.DRAIN_PORT.dirName()));
    }

    /** An export re-applied without a host (drift repair, the start-up re-apply) drops that host's live controller. */
    @Test
    void ensureExportDropsTheControllerOfAHostItNoLongerLists() throws Exception {
        export(A, device(), PORT, ADDRESS, HOST, HOST2);
        String dropped = connect(ADDRESS, A, HOST2);

        target().ensureExport(PORT, wanted(A, device(), ADDRESS, HOST));
        await(dropped, NvmetTargetContract::notLive, "the host the export no longer lists loses its controller");
        assertThatThrownBy(() -> connect(ADDRESS, A, HOST2)).isInstanceOf(IOException.class);
        assertThat(drift(wanted(A, device(), ADDRESS, HOST))).isEmpty();
    }

    /** A removed subsystem leaves no controller of it live, and nothing can connect to it. */
    @Test
    void aRemovedSubsystemLeavesNoControllerAndRefusesConnects() throws Exception {
        export(B, otherDevice(), PORT, ADDRESS, HOST); // keeps the port listening
        export(A, device(), PORT, ADDRESS, HOST);
        String controller = connect(ADDRESS, A, HOST);
        String other = connect(ADDRESS, B, HOST);
        int otherId = look(other).orElseThrow().cntlid();

        target().removeSubsystem(A);
        await(controller, NvmetTargetContract::notLive, "the removed subsystem's controller stops being live");
        assertThatThrownBy(() -> connect(ADDRESS, A, HOST)).isInstanceOf(IOException.class);
        assertThat(notLive(look(controller))).as("after its reconnects").isTrue();
        assertThat(look(other)).as("another subsystem's controller is not touched").contains(new Seen("live", otherId));
    }

    @Test
    void subsystemsListsOnlyNqns() throws IOException {
        tree().mkdir(nvmet("subsystems/x:contract-not-an-nqn")); // the kernel takes any name
        export(A, device(), PORT, ADDRESS);
        assertThat(target().subsystems()).contains(A)
                .noneMatch(n -> n.value().contains("not-an-nqn"));
        assertThat(target().inspect(B)).isEmpty();
    }

    @Test
    void theAuthProbeSaysWhatTheKernelHasAndLeavesNoHostEntry() throws IOException {
        assertThat(target().authSupported()).isEqualTo(kernelHasAuth());
        assertThat(tree().list(nvmet("hosts"))).noneMatch(h -> h.getFileName().toString()
                .equals(ConfigfsNvmetTarget.AUTH_PROBE_HOST));
    }

    @Test
    void keysOnAKernelWithoutAuthAreRefusedAndChangeNothing() throws IOException {
        if (kernelHasAuth()) {
            return; // NvmetAuthContract covers a kernel with authentication
        }
        export(A, device(), PORT, ADDRESS);
        target().ensureSubsystem(A, false);
        String before = ours();
        HostAuth auth = HostAuth.oneWay(NvmetAuthContract.KEY_1);
        assertThatThrownBy(() -> target().allowHost(A, HOST, Optional.of(auth)))
                .isInstanceOf(NvmetTargetException.class).hasMessageContaining("CONFIG_NVME_TARGET_AUTH");
        assertThat(ours()).isEqualTo(before);
    }

    /** Whether the kernel's ports can require TLS: the kernels here have it with authentication (6.12) or neither (6.1). */
    boolean kernelHasTls() {
        return kernelHasAuth();
    }

    @Test
    void theTlsProbeSaysWhatTheKernelHasAndATlsPortElsewhereIsRefusedChangingNothing() throws IOException {
        assertThat(target().tlsSupported()).isEqualTo(kernelHasTls());
        assertThat(tree().list(nvmet("ports"))).noneMatch(p -> p.getFileName().toString()
                .equals(ConfigfsNvmetTarget.DRAIN_PORT.dirName()));
        if (kernelHasTls()) {
            return; // NvmetTlsContract covers a kernel with TLS ports
        }
        String before = ours();
        PortAddress tls = PortAddress.tcp(ADDRESS.traddr(), ADDRESS.trsvcid(), true);
        assertThatThrownBy(() -> target().ensurePort(PORT, tls)).isInstanceOf(NvmetTargetException.class)
                .hasMessageContaining("cannot require TLS");
        assertThat(ours()).isEqualTo(before);
    }
}
