package pillar.agent.configfs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.List;
import java.util.Set;

import org.junit.jupiter.api.Test;

import pillar.api.value.Nqn;

/** The drift report: every difference between a wanted export and the kernel's state, in words. */
class ExportDriftTest {
    private static final Nqn NQN = Nqn.of("nqn.2024-06.io.pillar-csi:pvc-1");
    private static final Nqn HOST = Nqn.of("nqn.2014-08.org.nvmexpress:uuid:host-1");
    private static final Nqn HOST2 = Nqn.of("nqn.2014-08.org.nvmexpress:uuid:host-2");
    private static final NamespaceId NSID = NamespaceId.of(1);
    private static final Path DEVICE = Path.of("/dev/vg0/pvc-1");
    private static final PortAddress ADDRESS = PortAddress.tcp("10.0.0.5", 4420);
    private static final SubsystemState.Namespace ENABLED = new SubsystemState.Namespace(NSID, DEVICE.toString(), true);
    private static final SubsystemState.LinkedPort PORT = new SubsystemState.LinkedPort(PortId.of(7), "tcp", "ipv4",
            "10.0.0.5", "4420");

    private static final WantedExport ACL = new WantedExport(NQN, NSID, DEVICE, ADDRESS, true, Set.of(HOST));
    private static final WantedExport ANY = new WantedExport(NQN, NSID, DEVICE, ADDRESS, false, Set.of(HOST));

    private static SubsystemState state(boolean anyHost, List<SubsystemState.Namespace> namespaces, List<String> hosts,
                                        List<SubsystemState.LinkedPort> ports) {
        return new SubsystemState(NQN, anyHost, namespaces, hosts, ports);
    }

    @Test
    void theWantedStateHasNoDrift() {
        assertThat(ExportDrift.of(ACL, state(false, List.of(ENABLED), List.of(HOST.value()), List.of(PORT)))).isEmpty();
        assertThat(ExportDrift.of(ANY, state(true, List.of(ENABLED), List.of(), List.of(PORT))))
                .as("the allowed hosts do not matter without ACL").isEmpty();
    }

    @Test
    void aMissingSubsystemIsOneLine() {
        assertThat(ExportDrift.missing(ACL)).containsExactly("subsystem " + NQN + " missing");
    }

    @Test
    void namespaceDrift() {
        assertThat(ExportDrift.of(ACL, state(false, List.of(), List.of(HOST.value()), List.of(PORT))))
                .containsExactly("namespace 1 missing");
        assertThat(ExportDrift.of(ACL, state(false, List.of(new SubsystemState.Namespace(NSID, "", false)),
                List.of(HOST.value()), List.of(PORT))))
                .containsExactly("namespace 1 has no device, wanted /dev/vg0/pvc-1", "namespace 1 disabled");
        assertThat(ExportDrift.of(ACL, state(false, List.of(new SubsystemState.Namespace(NSID, "/dev/vg0/old", true),
                new SubsystemState.Namespace(NamespaceId.of(2), "/dev/sdb", false)), List.of(HOST.value()), List.of(PORT))))
                .containsExactly("namespace 1 points at /dev/vg0/old, wanted /dev/vg0/pvc-1",
                        "namespace 2 (/dev/sdb, disabled) present but not wanted");
    }

    @Test
    void hostPolicyAndHostDrift() {
        assertThat(ExportDrift.of(ACL, state(true, List.of(ENABLED), List.of(), List.of(PORT))))
                .containsExactly("any host may connect, wanted only the allowed hosts",
                        "host " + HOST + " not allowed but wanted");
        assertThat(ExportDrift.of(ACL, state(false, List.of(ENABLED), List.of(HOST2.value()), List.of(PORT))))
                .containsExactly("host " + HOST2 + " allowed but not wanted", "host " + HOST + " not allowed but wanted");
        assertThat(ExportDrift.of(ANY, state(false, List.of(ENABLED), List.of(HOST.value()), List.of(PORT))))
                .containsExactly("only allowed hosts may connect, wanted any host",
                        "host " + HOST + " allowed but not wanted");
    }

    @Test
    void portDrift() {
        assertThat(ExportDrift.of(ACL, state(false, List.of(ENABLED), List.of(HOST.value()), List.of())))
                .containsExactly("not linked to port tcp://10.0.0.5:4420");
        SubsystemState.LinkedPort elsewhere = new SubsystemState.LinkedPort(PortId.of(9), "tcp", "ipv6", "fd00::5", "4420");
        assertThat(ExportDrift.of(ACL, state(false, List.of(ENABLED), List.of(HOST.value()), List.of(PORT, elsewhere))))
                .containsExactly("linked to port 9 at tcp://[fd00::5]:4420 but not wanted");
        SubsystemState.LinkedPort rdma = new SubsystemState.LinkedPort(PortId.of(7), "rdma", "ipv4", "10.0.0.5", "4420");
        assertThat(ExportDrift.of(ACL, state(false, List.of(ENABLED), List.of(HOST.value()), List.of(rdma))))
                .containsExactly("not linked to port tcp://10.0.0.5:4420",
                        "linked to port 7 at rdma://10.0.0.5:4420 but not wanted");
    }

    @Test
    void everythingAtOnceInAFixedOrder() {
        assertThat(ExportDrift.of(ACL, state(true, List.of(new SubsystemState.Namespace(NSID, DEVICE.toString(), false)),
                List.of(HOST2.value()), List.of())))
                .containsExactly("namespace 1 disabled", "any host may connect, wanted only the allowed hosts",
                        "host " + HOST2 + " allowed but not wanted", "host " + HOST + " not allowed but wanted",
                        "not linked to port tcp://10.0.0.5:4420");
    }

    @Test
    void theStateOfAnotherSubsystemIsRefused() {
        SubsystemState other = new SubsystemState(Nqn.of("nqn.2024-06.io.pillar-csi:pvc-2"), false, List.of(), List.of(),
                List.of());
        assertThatThrownBy(() -> ExportDrift.of(ACL, other)).isInstanceOf(IllegalArgumentException.class);
    }
}
