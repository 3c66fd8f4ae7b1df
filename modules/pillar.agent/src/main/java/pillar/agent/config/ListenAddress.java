package pillar.agent.config;

import java.io.IOException;
import java.net.Inet4Address;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;

/**
 * Where the agent API listens when {@code agent.listen.host} is not written: the address in the
 * environment variable named by {@code agent.listen.host-env}, or else the first IPv4 address of
 * the interface that carries the default route, the storage node's address on its main network.
 * {@code 0.0.0.0} (every interface) is used only when written explicitly.
 *
 * <p>Every way of not finding an address refuses start-up with what to set instead.
 */
public final class ListenAddress {
    /** The kernel's IPv4 routing table, one route a line after a header. */
    public static final Path PROC_NET_ROUTE = Path.of("/proc/net/route");
    private static final int RTF_UP = 0x1;

    private final Path routeTable;
    private final Function<String, Optional<String>> environment;
    private final Function<String, List<Inet4Address>> interfaceAddresses;

    /**
     * @param routeTable         {@link #PROC_NET_ROUTE}, or a copy in a test
     * @param environment        a variable's value, as {@link System#getenv(String)}
     * @param interfaceAddresses the IPv4 addresses of the named interface, in the order the kernel lists them
     */
    public ListenAddress(Path routeTable, Function<String, Optional<String>> environment,
                         Function<String, List<Inet4Address>> interfaceAddresses) {
        this.routeTable = routeTable;
        this.environment = environment;
        this.interfaceAddresses = interfaceAddresses;
    }

    /** This host's: {@code /proc/net/route}, the process environment and its network interfaces. */
    public static ListenAddress system() {
        return new ListenAddress(PROC_NET_ROUTE, name -> Optional.ofNullable(System.getenv(name)),
                ListenAddress::addressesOf);
    }

    /**
     * The address to bind.
     *
     * @param host    {@code agent.listen.host}, when written
     * @param hostEnv {@code agent.listen.host-env}, when written
     * @throws IllegalArgumentException when both are written, the variable is unset or empty, or no
     *                                  default route with an IPv4 address is found
     */
    public String resolve(Optional<String> host, Optional<String> hostEnv) {
        if (host.isPresent() && hostEnv.isPresent()) {
            throw new IllegalArgumentException("agent.listen.host and agent.listen.host-env are both set: give one "
                    + "(the address to bind, or the environment variable holding it)");
        }
        if (host.isPresent()) {
            return host.get();
        }
        if (hostEnv.isPresent()) {
            String variable = hostEnv.get();
            String value = environment.apply(variable).map(String::strip).orElse("");
            if (value.isEmpty()) {
                throw new IllegalArgumentException("agent.listen.host-env names the environment variable " + variable
                        + ", which is " + (environment.apply(variable).isEmpty() ? "not set" : "empty")
                        + ": set it to this node's address (the chart sets it from status.hostIP), or set agent.listen.host");
            }
            return value;
        }
        return defaultRouteAddress();
    }

    private String defaultRouteAddress() {
        String device = defaultRouteDevice().orElseThrow(() -> new IllegalArgumentException(
                "agent.listen.host is not set and " + routeTable + " has no default route to take the address from: "
                        + "set agent.listen.host to this node's storage address (0.0.0.0 for every interface)"));
        return interfaceAddresses.apply(device).stream().findFirst().map(Inet4Address::getHostAddress)
                .orElseThrow(() -> new IllegalArgumentException("agent.listen.host is not set and " + device
                        + ", the interface of the default route, has no IPv4 address: set agent.listen.host"));
    }

    /** The interface of the default route that is up, with the lowest metric (the first of equals). */
    private Optional<String> defaultRouteDevice() {
        List<String> lines;
        try {
            lines = Files.readAllLines(routeTable);
        } catch (IOException e) {
            throw new IllegalArgumentException("agent.listen.host is not set and " + routeTable + " cannot be read ("
                    + e.getMessage() + "): set agent.listen.host", e);
        }
        String device = null;
        long bestMetric = Long.MAX_VALUE;
        // Iface Destination Gateway Flags RefCnt Use Metric Mask MTU Window IRTT, numbers in hexadecimal
        for (String line : lines.subList(Math.min(1, lines.size()), lines.size())) {
            String[] fields = line.strip().split("\\s+");
            if (fields.length < 8) {
                continue;
            }
            try {
                boolean isDefault = Long.parseLong(fields[1], 16) == 0 && Long.parseLong(fields[7], 16) == 0;
                boolean up = (Integer.parseInt(fields[3], 16) & RTF_UP) != 0;
                long metric = Long.parseLong(fields[6]);
                if (isDefault && up && metric < bestMetric) {
                    device = fields[0];
                    bestMetric = metric;
                }
            } catch (NumberFormatException e) {
                // not a route line
            }
        }
        return Optional.ofNullable(device);
    }

    private static List<Inet4Address> addressesOf(String device) {
        try {
            NetworkInterface nic = NetworkInterface.getByName(device);
            if (nic == null) {
                return List.of();
            }
            return Collections.list(nic.getInetAddresses()).stream()
                    .filter(Inet4Address.class::isInstance).map(Inet4Address.class::cast).toList();
        } catch (SocketException e) {
            return List.of();
        }
    }
}
