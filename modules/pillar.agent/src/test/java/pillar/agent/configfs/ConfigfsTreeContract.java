package pillar.agent.configfs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;
import java.util.function.Predicate;

import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.Test;

/**
 * How nvmet's configfs answers each call the adapter makes, as measured on Debian's 6.1 kernel: the
 * files mkdir makes and their first values, what attributes accept, which links are allowed, and the
 * error of every refusal with the exception type java.nio reports it as. {@link FakeConfigfsTreeTest}
 * runs it on the fake, {@link ConfigfsTreeKernelIT} on the kernel in the VM: the fake is faithful as
 * far as this contract goes.
 */
abstract class ConfigfsTreeContract {
    static final String S = "nqn.2024-06.io.pillar-csi:contract-a";
    static final String S2 = "nqn.2024-06.io.pillar-csi:contract-b";
    static final String H = "nqn.2014-08.org.nvmexpress:uuid:contract-h1";
    static final String PORT = "60001";
    static final String PORT2 = "60002";
    static final String TCP_PORT = "4471";
    /** What the contracts create, so that the kernel tests remove exactly that. */
    static final Predicate<String> OURS = name -> name.contains(":contract-")
            || KernelNumbers.parse(name, PortId.MAX).stream().anyMatch(id -> id >= 60_000 && id < 60_100);

    /** The tree under test, with configfs mounted at {@link #configfs()} and nvmet loaded. */
    abstract ConfigfsTree tree();

    abstract Path configfs();

    /** A block device a namespace can be enabled on. */
    abstract Path device();

    Path nvmet(String relative) {
        return configfs().resolve("nvmet").resolve(relative);
    }

    Path subsystem(String nqn) {
        return nvmet("subsystems").resolve(nqn);
    }

    Path port(String id) {
        return nvmet("ports").resolve(id);
    }

    Path host(String nqn) {
        return nvmet("hosts").resolve(nqn);
    }

    // ---- what mkdir makes ------------------------------------------------------------------------------------

    @Test
    void aSubsystemAppearsWithItsAttributesAndGroups() throws IOException {
        tree().mkdir(subsystem(S));
        assertThat(names(subsystem(S))).containsExactly("allowed_hosts", "attr_allow_any_host", "attr_cntlid_max",
                "attr_cntlid_min", "attr_model", "attr_pi_enable", "attr_qid_max", "attr_serial", "attr_version",
                "namespaces");
        assertThat(read(S, "attr_allow_any_host")).isEqualTo("0\n");
        assertThat(read(S, "attr_cntlid_max")).isEqualTo("65519\n");
        assertThat(read(S, "attr_cntlid_min")).isEqualTo("1\n");
        assertThat(read(S, "attr_model")).isEqualTo("Linux\n");
        assertThat(read(S, "attr_pi_enable")).isEqualTo("0\n");
        assertThat(read(S, "attr_qid_max")).isEqualTo("128\n");
        assertThat(read(S, "attr_serial")).matches("[0-9a-f]{20}\n");
        assertThat(read(S, "attr_version")).isEqualTo("1.3\n");
        assertThat(tree().kind(subsystem(S).resolve("namespaces"))).isEqualTo(ConfigfsTree.Kind.DIRECTORY);
        assertThat(names(subsystem(S).resolve("allowed_hosts"))).isEmpty();
        assertThat(names(subsystem(S).resolve("namespaces"))).isEmpty();
    }

    @Test
    void aNamespaceAppearsWithItsAttributesAndRevalidateSizeIsWriteOnly() throws IOException {
        tree().mkdir(subsystem(S));
        tree().mkdir(ns(S, "1"));
        assertThat(names(ns(S, "1"))).containsExactly("ana_grpid", "buffered_io", "device_nguid", "device_path",
                "device_uuid", "enable", "revalidate_size");
        assertThat(read(S, "namespaces/1/ana_grpid")).isEqualTo("1\n");
        assertThat(read(S, "namespaces/1/buffered_io")).isEqualTo("0\n");
        assertThat(read(S, "namespaces/1/device_nguid")).isEqualTo("00000000-0000-0000-0000-000000000000\n");
        assertThat(read(S, "namespaces/1/device_path")).isEqualTo("(null)\n");
        assertThat(read(S, "namespaces/1/device_uuid")).matches("\\p{XDigit}{8}(-\\p{XDigit}{4}){3}-\\p{XDigit}{12}\n");
        assertThat(read(S, "namespaces/1/enable")).isEqualTo("0\n");
        refused(() -> read(S, "namespaces/1/revalidate_size"), AccessDeniedException.class, Errno.EACCES);
    }

    @Test
    void aPortAppearsWithItsAttributesAndGroups() throws IOException {
        tree().mkdir(port(PORT));
        assertThat(names(port(PORT))).containsExactly("addr_adrfam", "addr_traddr", "addr_treq", "addr_trsvcid",
                "addr_trtype", "ana_groups", "param_inline_data_size", "param_pi_enable", "referrals", "subsystems");
        assertThat(tree().read(port(PORT).resolve("addr_adrfam"))).isEqualTo("\n");
        assertThat(tree().read(port(PORT).resolve("addr_traddr"))).isEqualTo("\n");
        assertThat(tree().read(port(PORT).resolve("addr_treq"))).isEqualTo("not specified\n");
        assertThat(tree().read(port(PORT).resolve("addr_trsvcid"))).isEqualTo("\n");
        assertThat(tree().read(port(PORT).resolve("addr_trtype"))).isEqualTo("\n");
        assertThat(tree().read(port(PORT).resolve("param_inline_data_size"))).isEqualTo("-1\n");
        assertThat(tree().read(port(PORT).resolve("param_pi_enable"))).isEqualTo("0\n");
        assertThat(names(port(PORT).resolve("ana_groups"))).containsExactly("1");
        assertThat(tree().read(port(PORT).resolve("ana_groups/1/ana_state"))).isEqualTo("optimized\n");
        assertThat(names(port(PORT).resolve("referrals"))).isEmpty();
        assertThat(names(port(PORT).resolve("subsystems"))).isEmpty();
    }

    @Test
    void aHostIsAnEmptyDirectory() throws IOException {
        tree().mkdir(host(H));
        assertThat(names(host(H))).isEmpty();
        refused(() -> tree().mkdir(host(H)), FileAlreadyExistsException.class, Errno.EEXIST);
    }

    @Test
    void theMountAndEverythingInItAreConfigfs() {
        assertThat(tree().isConfigfs(configfs())).isTrue();
        assertThat(tree().isConfigfs(nvmet("subsystems"))).isTrue();
        assertThat(new ConfigfsNvmetTarget(configfs(), tree()).presence()).isEqualTo(TargetPresence.READY);
    }

    // ---- what mkdir refuses ----------------------------------------------------------------------------------

    @Test
    void portIdsAreSixteenBitNumbersInAnyBase() throws IOException {
        for (String bad : List.of("70000", "abc", "-1", " 60003")) {
            refused(() -> tree().mkdir(port(bad)), FileSystemException.class, Errno.EINVAL);
        }
        for (String good : List.of("0xea6b", "+60004")) { // 60011 and 60004
            tree().mkdir(port(good));
            tree().rmdir(port(good));
        }
    }

    @Test
    void namespaceIdsAreNeitherZeroNorAllNamespaces() throws IOException {
        tree().mkdir(subsystem(S));
        for (String bad : List.of("0", "4294967295", "x")) {
            refused(() -> tree().mkdir(ns(S, bad)), FileSystemException.class, Errno.EINVAL);
        }
        refusedWith(() -> tree().mkdir(ns(S, "4294967296")), FileSystemException.class, "Numerical result out of range");
        for (String good : List.of("0x2", "007")) {
            tree().mkdir(ns(S, good));
            tree().rmdir(ns(S, good));
        }
    }

    @Test
    void theDiscoverySubsystemAndOverlongNamesAreRefused() {
        refused(() -> tree().mkdir(subsystem("nqn.2014-08.org.nvmexpress.discovery")), FileSystemException.class,
                Errno.EINVAL);
        refusedWith(() -> tree().mkdir(subsystem("nqn.2024-06.io.pillar-csi:contract-" + "x".repeat(222))),
                FileSystemException.class, "File name too long");
    }

    @Test
    void directoriesAreMadeOnlyWhereNvmetMakesItems() throws IOException {
        tree().mkdir(subsystem(S));
        tree().mkdir(port(PORT));
        refused(() -> tree().mkdir(subsystem(S).resolve("contract-x")), FileSystemException.class, Errno.EPERM);
        refused(() -> tree().mkdir(nvmet("contract-x")), FileSystemException.class, Errno.EPERM);
        refused(() -> tree().mkdir(port(PORT).resolve("subsystems/contract-x")), FileSystemException.class, Errno.EPERM);
        refused(() -> tree().rmdir(subsystem(S).resolve("namespaces")), FileSystemException.class, Errno.EPERM);
        refused(() -> tree().rmdir(port(PORT).resolve("ana_groups/1")), FileSystemException.class, Errno.EPERM);
    }

    // ---- attributes ------------------------------------------------------------------------------------------

    @Test
    void attributesAreNeverCreatedAndDirectoriesAreNotFiles() throws IOException {
        tree().mkdir(subsystem(S));
        refused(() -> tree().write(subsystem(S).resolve("attr_contract"), "1"), NoSuchFileException.class, Errno.ENOENT);
        refused(() -> tree().read(subsystem(S).resolve("attr_contract")), NoSuchFileException.class, Errno.ENOENT);
        refusedWith(() -> tree().read(subsystem(S)), IOException.class, "Is a directory");
        refusedWith(() -> tree().write(subsystem(S), "1"), FileSystemException.class, "Is a directory");
    }

    @Test
    void aNamespaceOpensItsDeviceOnEnableAndKeepsItWhileEnabled() throws IOException {
        tree().mkdir(subsystem(S));
        tree().mkdir(ns(S, "1"));
        Path devicePath = ns(S, "1").resolve("device_path");
        Path enable = ns(S, "1").resolve("enable");
        refused(() -> tree().write(enable, "1"), IOException.class, Errno.EINVAL); // no device yet
        refused(() -> tree().write(devicePath, "\n"), IOException.class, Errno.EINVAL);
        refused(() -> tree().write(ns(S, "1").resolve("revalidate_size"), "1"), IOException.class, Errno.EINVAL);
        tree().write(devicePath, "/dev/pillar-csi-contract-missing");
        assertThat(tree().read(devicePath)).isEqualTo("/dev/pillar-csi-contract-missing\n");
        refused(() -> tree().write(enable, "1"), IOException.class, Errno.ENOENT); // the kernel cannot open it
        assertThat(tree().read(enable)).isEqualTo("0\n");
        tree().write(devicePath, device() + "\nignored");
        assertThat(tree().read(devicePath)).isEqualTo(device() + "\n");
        refused(() -> tree().write(enable, "2"), IOException.class, Errno.EINVAL);
        tree().write(enable, "yes");
        assertThat(tree().read(enable)).isEqualTo("1\n");
        tree().write(enable, "1"); // again: succeeds
        refused(() -> tree().write(devicePath, device().toString()), IOException.class, Errno.EBUSY); // even the same
        refused(() -> tree().write(ns(S, "1").resolve("buffered_io"), "1"), IOException.class, Errno.EINVAL);
        refused(() -> tree().write(ns(S, "1").resolve("revalidate_size"), "0"), IOException.class, Errno.EINVAL);
        tree().write(ns(S, "1").resolve("revalidate_size"), "1");
        tree().write(enable, "0");
        assertThat(tree().read(enable)).isEqualTo("0\n");
        tree().write(devicePath, device().toString());
    }

    @Test
    void allowAnyHostAndAllowedHostsExcludeEachOther() throws IOException {
        tree().mkdir(subsystem(S));
        tree().mkdir(host(H));
        Path any = subsystem(S).resolve("attr_allow_any_host");
        Path link = subsystem(S).resolve("allowed_hosts").resolve(H);
        refused(() -> tree().write(any, "2"), IOException.class, Errno.EINVAL);
        tree().write(any, "1");
        assertThat(tree().read(any)).isEqualTo("1\n");
        refused(() -> tree().symlink(link, host(H)), FileSystemException.class, Errno.EINVAL);
        tree().write(any, "0");
        tree().symlink(link, host(H));
        assertThat(tree().readlink(link)).isEqualTo(Path.of("../../../../nvmet/hosts/" + H));
        assertThat(tree().kind(link)).isEqualTo(ConfigfsTree.Kind.LINK);
        refused(() -> tree().write(any, "1"), IOException.class, Errno.EINVAL);
        refused(() -> tree().symlink(subsystem(S).resolve("allowed_hosts/contract-other-name"), host(H)),
                FileAlreadyExistsException.class, Errno.EEXIST); // one link per host, whatever its name
        refused(() -> tree().symlink(link, host(H)), FileAlreadyExistsException.class, Errno.EEXIST);
    }

    @Test
    void linksMustPointAtItemsOfTheRightKindByAbsolutePath() throws IOException {
        tree().mkdir(subsystem(S));
        tree().mkdir(host(H));
        tree().mkdir(port(PORT));
        Path allowed = subsystem(S).resolve("allowed_hosts");
        refused(() -> tree().symlink(allowed.resolve("r"), Path.of("../../../hosts/" + H)), NoSuchFileException.class,
                Errno.ENOENT);
        refused(() -> tree().symlink(allowed.resolve("t"), Path.of("/tmp")), FileSystemException.class, Errno.EPERM);
        refused(() -> tree().symlink(allowed.resolve("m"), host("nqn.2014-08.org.nvmexpress:uuid:contract-none")),
                NoSuchFileException.class, Errno.ENOENT);
        refusedWith(() -> tree().symlink(allowed.resolve("a"), subsystem(S).resolve("attr_model")),
                FileSystemException.class, "Not a directory");
        refused(() -> tree().symlink(allowed.resolve("s"), subsystem(S)), FileSystemException.class, Errno.EINVAL);
        refused(() -> tree().symlink(port(PORT).resolve("subsystems/h"), host(H)), FileSystemException.class,
                Errno.EINVAL);
        refused(() -> tree().symlink(subsystem(S).resolve("h"), host(H)), FileSystemException.class, Errno.EPERM);
        assertThat(names(allowed)).isEmpty();
    }

    // ---- ports -----------------------------------------------------------------------------------------------

    @Test
    void theFirstLinkStartsTheListenerAndFreezesTheAddress() throws IOException {
        tree().mkdir(subsystem(S));
        tree().mkdir(port(PORT));
        Path link = port(PORT).resolve("subsystems").resolve(S);
        refused(() -> tree().symlink(link, subsystem(S)), FileSystemException.class, Errno.EINVAL); // no transport
        refused(() -> write(PORT, "addr_trtype", "bogus"), IOException.class, Errno.EINVAL);
        refused(() -> write(PORT, "addr_adrfam", "IPv4"), IOException.class, Errno.EINVAL);
        write(PORT, "addr_trtype", "tcp");
        write(PORT, "addr_adrfam", "ipv4");
        write(PORT, "addr_traddr", "127.0.0.1 ignored");
        assertThat(tree().read(port(PORT).resolve("addr_traddr"))).isEqualTo("127.0.0.1\n");
        write(PORT, "addr_trsvcid", "abc"); // stored as is, refused when the port starts
        refused(() -> tree().symlink(link, subsystem(S)), FileSystemException.class, Errno.EINVAL);
        refused(() -> write(PORT, "addr_trsvcid", "1".repeat(33)), IOException.class, Errno.EINVAL);
        write(PORT, "addr_trsvcid", TCP_PORT);
        tree().symlink(link, subsystem(S));
        assertThat(tree().readlink(link)).isEqualTo(Path.of("../../../../nvmet/subsystems/" + S));
        assertThat(tree().read(port(PORT).resolve("param_inline_data_size"))).isEqualTo("16384\n"); // nvmet-tcp's
        for (String attribute : List.of("addr_trtype", "addr_adrfam", "addr_traddr", "addr_trsvcid", "addr_treq")) {
            String same = tree().read(port(PORT).resolve(attribute)).strip();
            refused(() -> write(PORT, attribute, same), IOException.class, Errno.EACCES); // even the same value
        }
        refused(() -> write(PORT, "param_inline_data_size", "-1"), IOException.class, Errno.EACCES);
        refused(() -> tree().symlink(port(PORT).resolve("subsystems/contract-again"), subsystem(S)),
                FileAlreadyExistsException.class, Errno.EEXIST); // one link per subsystem, whatever its name
        tree().unlink(link); // the last link stops the listener
        write(PORT, "addr_trsvcid", TCP_PORT);
    }

    @Test
    void aPortListensOnlyOnAFreeLocalAddress() throws IOException {
        tree().mkdir(subsystem(S));
        listen(PORT, "127.0.0.1", TCP_PORT);
        tree().symlink(port(PORT).resolve("subsystems").resolve(S), subsystem(S));
        Path link2 = port(PORT2).resolve("subsystems").resolve(S);
        listen(PORT2, "0.0.0.0", TCP_PORT);
        refused(() -> tree().symlink(link2, subsystem(S)), FileSystemException.class, Errno.EADDRINUSE);
        write(PORT2, "addr_traddr", "127.0.0.1");
        refused(() -> tree().symlink(link2, subsystem(S)), FileSystemException.class, Errno.EADDRINUSE);
        write(PORT2, "addr_traddr", "10.9.9.9");
        refused(() -> tree().symlink(link2, subsystem(S)), FileSystemException.class, Errno.EADDRNOTAVAIL);
        write(PORT2, "addr_adrfam", "ipv6");
        refused(() -> tree().symlink(link2, subsystem(S)), FileSystemException.class, Errno.EINVAL);
        assertThat(names(port(PORT2).resolve("subsystems"))).isEmpty();
        write(PORT2, "addr_traddr", "::1");
        tree().symlink(link2, subsystem(S)); // another address, same TCP port: a second listener
        assertThat(names(port(PORT2).resolve("subsystems"))).containsExactly(S);
    }

    // ---- removal ---------------------------------------------------------------------------------------------

    @Test
    void removalIsRefusedWhileLinkedOrNotEmpty() throws IOException {
        tree().mkdir(subsystem(S));
        tree().mkdir(ns(S, "1"));
        tree().write(ns(S, "1").resolve("device_path"), device().toString());
        tree().write(ns(S, "1").resolve("enable"), "1");
        tree().mkdir(host(H));
        tree().symlink(subsystem(S).resolve("allowed_hosts").resolve(H), host(H));
        listen(PORT, "127.0.0.1", TCP_PORT);
        tree().symlink(port(PORT).resolve("subsystems").resolve(S), subsystem(S));

        refused(() -> tree().rmdir(subsystem(S)), FileSystemException.class, Errno.EBUSY); // linked by a port
        refused(() -> tree().rmdir(port(PORT)), DirectoryNotEmptyException.class, Errno.ENOTEMPTY);
        refused(() -> tree().rmdir(host(H)), FileSystemException.class, Errno.EBUSY); // linked by allowed_hosts
        refused(() -> tree().unlink(subsystem(S).resolve("attr_model")), FileSystemException.class, Errno.EPERM);

        tree().unlink(port(PORT).resolve("subsystems").resolve(S));
        refused(() -> tree().unlink(port(PORT).resolve("subsystems").resolve(S)), NoSuchFileException.class,
                Errno.ENOENT);
        refused(() -> tree().rmdir(subsystem(S)), DirectoryNotEmptyException.class, Errno.ENOTEMPTY); // a namespace
        tree().rmdir(ns(S, "1")); // enabled: the kernel disables it on the way out
        refused(() -> tree().rmdir(subsystem(S)), DirectoryNotEmptyException.class, Errno.ENOTEMPTY); // a host link
        tree().unlink(subsystem(S).resolve("allowed_hosts").resolve(H));
        tree().rmdir(subsystem(S));
        refused(() -> tree().rmdir(subsystem(S)), NoSuchFileException.class, Errno.ENOENT);
        tree().rmdir(host(H));

        tree().mkdir(port(PORT).resolve("referrals/contract-r"));
        refused(() -> tree().rmdir(port(PORT)), DirectoryNotEmptyException.class, Errno.ENOTEMPTY);
        tree().rmdir(port(PORT).resolve("referrals/contract-r"));
        tree().mkdir(port(PORT).resolve("ana_groups/2"));
        refused(() -> tree().rmdir(port(PORT)), DirectoryNotEmptyException.class, Errno.ENOTEMPTY);
        tree().rmdir(port(PORT).resolve("ana_groups/2"));
        tree().rmdir(port(PORT));
        assertThat(names(nvmet("ports")).stream().filter(OURS)).isEmpty();
    }

    // ---- helpers ---------------------------------------------------------------------------------------------

    void listen(String port, String traddr, String trsvcid) throws IOException {
        tree().mkdir(port(port));
        write(port, "addr_trtype", "tcp");
        write(port, "addr_adrfam", traddr.contains(":") ? "ipv6" : "ipv4");
        write(port, "addr_traddr", traddr);
        write(port, "addr_trsvcid", trsvcid);
    }

    private void write(String port, String attribute, String value) throws IOException {
        tree().write(port(port).resolve(attribute), value);
    }

    private Path ns(String subsystem, String nsid) {
        return subsystem(subsystem).resolve("namespaces").resolve(nsid);
    }

    private String read(String subsystem, String attribute) throws IOException {
        return tree().read(subsystem(subsystem).resolve(attribute));
    }

    List<String> names(Path dir) throws IOException {
        return tree().list(dir).stream().map(p -> p.getFileName().toString()).sorted().toList();
    }

    /** The call fails with exactly this exception type, and {@link Errno} recognises the error. */
    static void refused(ThrowingCallable call, Class<? extends IOException> type, Errno errno) {
        assertThatThrownBy(call).isExactlyInstanceOf(type)
                .satisfies(e -> assertThat(Errno.of((IOException) e)).as("errno of %s", e).isEqualTo(errno));
    }

    /** The call fails with exactly this exception type carrying the C library's text of an error {@link Errno} does not name. */
    static void refusedWith(ThrowingCallable call, Class<? extends IOException> type, String strerror) {
        assertThatThrownBy(call).isExactlyInstanceOf(type)
                .satisfies(e -> assertThat(Errno.describe((IOException) e)).isEqualTo(strerror));
    }
}
