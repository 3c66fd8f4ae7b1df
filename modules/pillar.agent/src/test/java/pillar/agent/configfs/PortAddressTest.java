package pillar.agent.configfs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import pillar.agent.configfs.PortAddress.AddressFamily;
import pillar.api.value.InvalidValueException;

/** Port addresses, port and namespace IDs: the grammar, and the difference to what the kernel holds. */
class PortAddressTest {

    @Test
    void familyFollowsTheLiteral() {
        assertThat(PortAddress.tcp("127.0.0.1", 4420).family()).isEqualTo(AddressFamily.IPV4);
        assertThat(PortAddress.tcp("10.0.255.1", 4420).family()).isEqualTo(AddressFamily.IPV4);
        assertThat(PortAddress.tcp("::1", 4420).family()).isEqualTo(AddressFamily.IPV6);
        assertThat(PortAddress.tcp("fd00:1::5", 4420).family()).isEqualTo(AddressFamily.IPV6);
        assertThat(PortAddress.tcp("fd00:1::5", 4420)).hasToString("tcp://[fd00:1::5]:4420");
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "localhost", "example.com", "1.2.3", "1.2.3.4.5", "256.0.0.1", "01.2.3.4",
        "1.2.3.4 ", " 1.2.3.4", "1.2.3.4\n", "fe80::1%eth0", "::g", "1:2", "a:b:c:d:e:f:0:1:2", ".:1", "[::1]",
        "1.2.3.4/24", "../x", "1.2.3.4,trsvcid=1"})
    void refusesAnythingButAnIpLiteral(String traddr) {
        assertThatThrownBy(() -> PortAddress.tcp(traddr, 4420))
                .isInstanceOf(InvalidValueException.class)
                .satisfies(e -> assertThat(((InvalidValueException) e).field()).isEqualTo("traddr"));
    }

    @Test
    void familyMustMatch() {
        assertThatThrownBy(() -> new PortAddress(AddressFamily.IPV6, "127.0.0.1", 4420, false))
                .isInstanceOf(InvalidValueException.class).hasMessageContaining("ipv6");
    }

    @ParameterizedTest
    @ValueSource(ints = {0, -1, 65_536})
    void refusesBadServicePorts(int trsvcid) {
        assertThatThrownBy(() -> PortAddress.tcp("127.0.0.1", trsvcid)).isInstanceOf(InvalidValueException.class);
    }

    @Test
    void freshPortNeedsEveryAttributeInKernelOrder() {
        // what mkdir ports/<id> leaves (KERNEL-FACTS.md)
        Map<String, String> fresh = Map.of("addr_trtype", "", "addr_adrfam", "", "addr_traddr", "", "addr_trsvcid", "");
        assertThat(PortAddress.tcp("127.0.0.1", 4420).changesFrom(fresh))
                .extracting(AttributeChange::attribute, AttributeChange::wanted)
                .containsExactly(
                        tuple("addr_trtype", "tcp"),
                        tuple("addr_adrfam", "ipv4"),
                        tuple("addr_traddr", "127.0.0.1"),
                        tuple("addr_trsvcid", "4420"));
    }

    @Test
    void configuredPortNeedsNothing() {
        Map<String, String> live = Map.of("addr_trtype", "tcp", "addr_adrfam", "ipv4", "addr_traddr", "127.0.0.1",
                "addr_trsvcid", "4420");
        assertThat(PortAddress.tcp("127.0.0.1", 4420).changesFrom(live)).isEmpty();
    }

    @Test
    void onlyTheDifferenceIsReported() {
        Map<String, String> live = Map.of("addr_trtype", "tcp", "addr_adrfam", "ipv4", "addr_traddr", "127.0.0.1",
                "addr_trsvcid", "4420");
        assertThat(PortAddress.tcp("127.0.0.1", 4421).changesFrom(live))
                .containsExactly(new AttributeChange("addr_trsvcid", "4420", "4421"))
                .first().hasToString("addr_trsvcid is '4420', wanted '4421'");
    }

    @Test
    void portIdsAreTheKernelsU16() {
        assertThat(PortId.of(0).dirName()).isEqualTo("0");
        assertThat(PortId.of(65_535).dirName()).isEqualTo("65535");
        assertThatThrownBy(() -> PortId.of(65_536)).isInstanceOf(InvalidValueException.class);
        assertThatThrownBy(() -> PortId.of(-1)).isInstanceOf(InvalidValueException.class);
    }

    @Test
    void namespaceIdsExcludeTheReservedValues() {
        assertThat(NamespaceId.of(1).dirName()).isEqualTo("1");
        assertThat(NamespaceId.of(0xFFFF_FFFEL).dirName()).isEqualTo("4294967294");
        assertThatThrownBy(() -> NamespaceId.of(0)).isInstanceOf(InvalidValueException.class)
                .hasMessageContaining("reserved");
        assertThatThrownBy(() -> NamespaceId.of(0xFFFF_FFFFL)).isInstanceOf(InvalidValueException.class);
    }
}
