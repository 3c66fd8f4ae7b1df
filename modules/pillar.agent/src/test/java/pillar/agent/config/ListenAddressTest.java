package pillar.agent.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Where the agent binds: written, from a variable, or the default route's interface (from /proc/net/route). */
class ListenAddressTest {
    @TempDir
    Path dir;

    Path routes(String name) {
        return copy(dir, name);
    }

    /** A copy in {@code dir} of a captured /proc/net/route: {@code route-defaults} or {@code route-no-default}. */
    static Path copy(Path dir, String name) {
        try (InputStream in = ListenAddressTest.class.getResourceAsStream(name)) {
            Path file = dir.resolve(name);
            Files.copy(in, file, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
            return file;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static ListenAddress listen(Path routes, Map<String, String> environment) {
        return new ListenAddress(routes, name -> Optional.ofNullable(environment.get(name)), ListenAddressTest::addresses);
    }

    /** eth1 has two IPv4 addresses, bond0 and eth2 one each, wlan0 none. */
    static List<Inet4Address> addresses(String device) {
        return switch (device) {
            case "eth1" -> List.of(v4("10.10.2.7"), v4("10.10.2.8"));
            case "eth2" -> List.of(v4("10.10.3.7"));
            case "bond0" -> List.of(v4("10.0.1.7"));
            default -> List.of();
        };
    }

    static Inet4Address v4(String address) {
        try {
            return (Inet4Address) InetAddress.getByName(address);
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException(e);
        }
    }

    @Test
    void aWrittenHostIsUsedAsItIsEveryInterfaceOnlyWhenWritten() {
        ListenAddress listen = listen(routes("route-defaults"), Map.of());
        assertThat(listen.resolve(Optional.of("192.0.2.10"), Optional.empty())).isEqualTo("192.0.2.10");
        assertThat(listen.resolve(Optional.of("0.0.0.0"), Optional.empty())).isEqualTo("0.0.0.0");
    }

    @Test
    void hostEnvReadsTheNamedVariable() {
        ListenAddress listen = listen(routes("route-defaults"), Map.of("PILLAR_NODE_IP", " 10.20.0.5\n"));
        assertThat(listen.resolve(Optional.empty(), Optional.of("PILLAR_NODE_IP"))).isEqualTo("10.20.0.5");
    }

    @Test
    void anUnsetOrEmptyVariableRefusesToStart() {
        Path routes = routes("route-defaults");
        assertThatThrownBy(() -> listen(routes, Map.of()).resolve(Optional.empty(), Optional.of("PILLAR_NODE_IP")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("agent.listen.host-env").hasMessageContaining("PILLAR_NODE_IP").hasMessageContaining("not set");
        assertThatThrownBy(() -> listen(routes, Map.of("PILLAR_NODE_IP", " ")).resolve(Optional.empty(),
                Optional.of("PILLAR_NODE_IP")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("PILLAR_NODE_IP").hasMessageContaining("empty");
    }

    @Test
    void hostAndHostEnvTogetherAreRefused() {
        assertThatThrownBy(() -> listen(routes("route-defaults"), Map.of("IP", "10.0.0.1"))
                .resolve(Optional.of("10.0.0.2"), Optional.of("IP")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("both");
    }

    @Test
    void byDefaultTheFirstAddressOfTheDefaultRoutesInterface() {
        // wlan0's default route is down (flags 0002); eth1 and eth2 tie at metric 50 below bond0's 100: the first wins
        assertThat(listen(routes("route-defaults"), Map.of()).resolve(Optional.empty(), Optional.empty()))
                .isEqualTo("10.10.2.7");
    }

    @Test
    void noDefaultRouteOrNoAddressRefusesToStart() {
        assertThatThrownBy(() -> listen(routes("route-no-default"), Map.of()).resolve(Optional.empty(), Optional.empty()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("no default route").hasMessageContaining("agent.listen.host");
        ListenAddress noAddress = new ListenAddress(routes("route-defaults"), name -> Optional.empty(), device -> List.of());
        assertThatThrownBy(() -> noAddress.resolve(Optional.empty(), Optional.empty()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("eth1").hasMessageContaining("no IPv4");
        ListenAddress unreadable = listen(dir.resolve("missing"), Map.of());
        assertThatThrownBy(() -> unreadable.resolve(Optional.empty(), Optional.empty()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("cannot be read");
    }
}
