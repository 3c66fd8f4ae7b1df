package pillar.agent.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

import io.helidon.config.Config;
import io.helidon.config.ConfigSources;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import pillar.agent.state.InstallationId;
import pillar.api.agent.v1.BackendKind;
import pillar.api.value.InvalidValueException;

class AgentConfigTest {
    private static final Map<String, String> ENVIRONMENT = Map.of("PILLAR_NODE_IP", "10.20.0.5");
    private static final Map<String, String> BACKEND = Map.of("agent.backends.0.name", "a", "agent.backends.0.type", "lvm",
            "agent.backends.0.volume-group", "vg0");

    @TempDir
    static Path dir;

    /** Reads the values on a host whose default route is eth1's ({@code route-defaults}) and with {@link #ENVIRONMENT}. */
    private static AgentConfig load(Map<String, String> values) {
        ListenAddress listen = ListenAddressTest.listen(ListenAddressTest.copy(dir, "route-defaults"), ENVIRONMENT);
        return AgentConfig.from(Config.just(ConfigSources.create(values)), listen);
    }

    private static Map<String, String> with(Map<String, String> values) {
        Map<String, String> all = new HashMap<>(BACKEND);
        all.putAll(values);
        return all;
    }

    @Test
    void listensOnTheDefaultRoutesAddressTheVariableOrTheWrittenHost() {
        assertThat(load(BACKEND).listenHost()).isEqualTo("10.10.2.7");
        assertThat(load(with(Map.of("agent.listen.host-env", "PILLAR_NODE_IP"))).listenHost()).isEqualTo("10.20.0.5");
        assertThat(load(with(Map.of("agent.listen.host", "0.0.0.0"))).listenHost()).isEqualTo("0.0.0.0");
        assertThatThrownBy(() -> load(with(Map.of("agent.listen.host-env", "NODE_ADDRESS"))))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("NODE_ADDRESS").hasMessageContaining("not set");
    }

    @Test
    void readsTheClientNamesWithTheControllersAsDefault() throws Exception {
        Path file = Files.writeString(dir.resolve("readable.pem"), "checked when the agent starts");
        Map<String, String> tls = Map.of("agent.tls.cert", file.toString(), "agent.tls.key", file.toString(),
                "agent.tls.ca", file.toString());
        assertThat(load(with(tls)).tls().orElseThrow().clientNames()).containsExactly("pillar-controller");
        Map<String, String> named = new HashMap<>(tls);
        named.putAll(Map.of("agent.tls.client-names.0", "ctl-a", "agent.tls.client-names.1", "ctl-b"));
        assertThat(load(with(named)).tls().orElseThrow().clientNames()).containsExactly("ctl-a", "ctl-b");
        Map<String, String> blank = new HashMap<>(tls);
        blank.put("agent.tls.client-names.0", " ");
        assertThatThrownBy(() -> load(with(blank))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("agent.tls.client-names");
    }

    @Test
    void readsBackendsAndDefaults() {
        AgentConfig config = load(Map.of(
                "agent.backends.0.name", "tank", "agent.backends.0.type", "zfs",
                "agent.backends.0.pool", "tank", "agent.backends.0.parent-dataset", "k8s/vols",
                "agent.backends.1.name", "fast", "agent.backends.1.type", "lvm-thin",
                "agent.backends.1.volume-group", "vg0", "agent.backends.1.thin-pool", "pool0"));
        assertThat(config.backends()).containsExactly(
                new BackendConfig("tank", BackendKind.BACKEND_KIND_ZFS_ZVOL, "tank", "k8s/vols"),
                new BackendConfig("fast", BackendKind.BACKEND_KIND_LVM_THIN, "vg0", "pool0"));
        assertThat(config.listenPort()).isEqualTo(9500);
        assertThat(config.stateDir()).hasToString("/var/lib/pillar-csi/agent");
        assertThat(config.configfsRoot()).hasToString("/sys/kernel/config");
        assertThat(config.tls()).isEmpty();
        assertThat(config.nodeName()).isEqualTo(AgentConfig.hostName()).isNotEmpty();
        assertThat(config.installationId()).isEmpty();
    }

    @Test
    void readsAThinPoolsOverProvisioningRatioDefaultOne() {
        Map<String, String> thin = Map.of("agent.backends.0.name", "fast", "agent.backends.0.type", "lvm-thin",
                "agent.backends.0.volume-group", "vg0", "agent.backends.0.thin-pool", "pool0");
        assertThat(load(thin).backends().getFirst().overProvisioningRatio()).isEqualByComparingTo("1");
        Map<String, String> ratio = new HashMap<>(thin);
        ratio.put("agent.backends.0.over-provisioning-ratio", "2.50");
        assertThat(load(ratio).backends().getFirst()).isEqualTo(new BackendConfig("fast", BackendKind.BACKEND_KIND_LVM_THIN, "vg0",
                "pool0", new java.math.BigDecimal("2.5")));
    }

    @Test
    void refusesToStartWithABadOverProvisioningRatio() {
        Map<String, String> thin = Map.of("agent.backends.0.name", "fast", "agent.backends.0.type", "lvm-thin",
                "agent.backends.0.volume-group", "vg0", "agent.backends.0.thin-pool", "pool0");
        Map<String, String> reasons = Map.of(
                "0.9", "backends.fast.over-provisioning-ratio: must be a decimal number from 1.0 (no over-provisioning) to 1000, is 0.9",
                "-1", "is -1",
                "1000.5", "is 1000.5",
                "twice", "over-provisioning-ratio must be a decimal number like 1.0 or 2.5, is 'twice'",
                "NaN", "is 'NaN'");
        reasons.forEach((value, reason) -> {
            Map<String, String> bad = new HashMap<>(thin);
            bad.put("agent.backends.0.over-provisioning-ratio", value);
            assertThatThrownBy(() -> load(bad)).as(value).isInstanceOf(IllegalArgumentException.class).hasMessageContaining(reason);
        });
        assertThatThrownBy(() -> load(with(Map.of("agent.backends.0.over-provisioning-ratio", "2"))))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("backend 'a': over-provisioning-ratio applies to an lvm-thin backend only, this one is of type 'lvm'");
        assertThatThrownBy(() -> new BackendConfig("z", BackendKind.BACKEND_KIND_ZFS_ZVOL, "tank", "", java.math.BigDecimal.TWO))
                .isInstanceOf(InvalidValueException.class).hasMessageContaining("applies to an lvm-thin backend only");
    }

    @Test
    void readsAZfsDatasetBackendValidatedLikeZfs() {
        AgentConfig config = load(Map.of(
                "agent.backends.0.name", "shared", "agent.backends.0.type", "zfs-dataset",
                "agent.backends.0.pool", "tank", "agent.backends.0.parent-dataset", "nfs/vols"));
        assertThat(config.backends()).containsExactly(new BackendConfig("shared", BackendKind.BACKEND_KIND_ZFS_DATASET, "tank", "nfs/vols"));
        assertThatThrownBy(() -> new BackendConfig("a", BackendKind.BACKEND_KIND_ZFS_DATASET, "tank", "../x"))
                .isInstanceOf(InvalidValueException.class).hasMessageContaining("parent-dataset");
        assertThatThrownBy(() -> new BackendConfig("a", BackendKind.BACKEND_KIND_ZFS_DATASET, "-tank", "nfs"))
                .isInstanceOf(InvalidValueException.class).hasMessageContaining("pool");
    }

    @Test
    void readsTheNodeNameAndInstallationAndRefusesBadOnes() {
        Map<String, String> backend = Map.of("agent.backends.0.name", "a", "agent.backends.0.type", "lvm",
                "agent.backends.0.volume-group", "vg0");
        var named = new java.util.HashMap<>(backend);
        named.putAll(Map.of("agent.node-name", "storage-1", "agent.installation-id", "prod.pillar"));
        AgentConfig config = load(named);
        assertThat(config.nodeName()).isEqualTo("storage-1");
        assertThat(config.installationId()).contains(InstallationId.of("prod.pillar"));
        var badId = new java.util.HashMap<>(backend);
        badId.put("agent.installation-id", "prod pillar");
        assertThatThrownBy(() -> load(badId)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("agent.installation-id").hasMessageContaining("'prod pillar'");
        var badNode = new java.util.HashMap<>(backend);
        badNode.put("agent.node-name", "../storage");
        assertThatThrownBy(() -> load(badNode)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("agent.node-name");
    }

    @Test
    void readsTheLegacyStateDirAndRefusesARelativeOneOrOneNotApart() {
        Map<String, String> release = Map.of("agent.state-dir", "/var/lib/pillar-csi/storage.pillar/agent",
                "agent.installation-id", "storage.pillar");
        assertThat(load(with(release)).legacyStateDir()).as("optional").isEmpty();
        var legacy = new HashMap<>(with(release));
        legacy.put("agent.legacy-state-dir", "/var/lib/pillar-csi/agent");
        assertThat(load(legacy).legacyStateDir()).contains(Path.of("/var/lib/pillar-csi/agent"));

        for (String relative : new String[] {"var/lib/pillar-csi/agent", "/var/lib/pillar-csi/x/../agent", ""}) {
            legacy.put("agent.legacy-state-dir", relative);
            assertThatThrownBy(() -> load(legacy)).as(relative).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("agent.legacy-state-dir must be an absolute path").hasMessageContaining("'" + relative + "'");
        }
        for (String notApart : new String[] {"/var/lib/pillar-csi/storage.pillar/agent", "/var/lib/pillar-csi",
                "/var/lib/pillar-csi/storage.pillar/agent/old"}) {
            legacy.put("agent.legacy-state-dir", notApart);
            assertThatThrownBy(() -> load(legacy)).as(notApart).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("must be apart");
        }
        var noInstallation = new HashMap<>(with(Map.of("agent.legacy-state-dir", "/var/lib/pillar-csi/agent",
                "agent.state-dir", "/var/lib/pillar-csi/x/agent")));
        assertThatThrownBy(() -> load(noInstallation)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("agent.legacy-state-dir needs agent.installation-id");
    }

    @Test
    void refusesToStartWithoutABackend() {
        assertThatThrownBy(() -> load(Map.of("agent.listen.port", "9500")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("no backend configured");
    }

    @Test
    void refusesPartialTlsAndUnreadableFiles() {
        Map<String, String> backend = Map.of("agent.backends.0.name", "a", "agent.backends.0.type", "lvm",
                "agent.backends.0.volume-group", "vg0");
        var partial = new java.util.HashMap<>(backend);
        partial.put("agent.tls.cert", "/x.crt");
        assertThatThrownBy(() -> load(partial)).hasMessageContaining("all of cert, key and ca");
        var missing = new java.util.HashMap<>(backend);
        missing.putAll(Map.of("agent.tls.cert", "/no/x.crt", "agent.tls.key", "/no/x.key", "agent.tls.ca", "/no/ca.crt"));
        assertThatThrownBy(() -> load(missing)).hasMessageContaining("cannot read /no/x.crt");
    }

    @Test
    void refusesHostileBackendNames() {
        assertThatThrownBy(() -> new BackendConfig("a", BackendKind.BACKEND_KIND_LVM_LINEAR, "-vg", ""))
                .isInstanceOf(InvalidValueException.class);
        assertThatThrownBy(() -> new BackendConfig("a", BackendKind.BACKEND_KIND_ZFS_ZVOL, "tank", "../x"))
                .isInstanceOf(InvalidValueException.class);
        assertThatThrownBy(() -> new BackendConfig("A B", BackendKind.BACKEND_KIND_ZFS_ZVOL, "tank", ""))
                .isInstanceOf(InvalidValueException.class);
        assertThatThrownBy(() -> new BackendConfig("a", BackendKind.BACKEND_KIND_LVM_THIN, "vg0", ""))
                .isInstanceOf(InvalidValueException.class);
        assertThatThrownBy(() -> load(Map.of("agent.backends.0.name", "a", "agent.backends.0.type", "btrfs")))
                .hasMessageContaining("type must be zfs, zfs-dataset, lvm or lvm-thin");
    }
}
