package pillar.agent.configfs;

import java.util.List;
import java.util.Map;
import java.util.Optional;

import pillar.api.value.Nqn;

/**
 * What the kernel holds for one nvmet subsystem, as read from configfs by {@link NvmetTarget#inspect}:
 * the values verbatim, whoever wrote them.
 *
 * @param nqn          the subsystem
 * @param allowAnyHost {@code attr_allow_any_host} is 1: every host may connect
 * @param namespaces   its namespaces, by nsid
 * @param allowedHosts the host NQNs its {@code allowed_hosts/} links point at, sorted (names of
 *                     {@code hosts/} entries, which the kernel does not check against any grammar)
 * @param ports        the ports that link it, by port id
 * @param hostKeys     the DH-HMAC-CHAP attributes of each allowed host whose entry holds a key, by host
 *                     NQN (none on a kernel without authentication)
 */
public record SubsystemState(Nqn nqn, boolean allowAnyHost, List<Namespace> namespaces, List<String> allowedHosts,
                             List<LinkedPort> ports, Map<String, HostKeys> hostKeys) {

    public SubsystemState {
        namespaces = List.copyOf(namespaces);
        allowedHosts = List.copyOf(allowedHosts);
        ports = List.copyOf(ports);
        hostKeys = Map.copyOf(hostKeys);
    }

    /** The state of a subsystem whose hosts have no DH-HMAC-CHAP attributes. */
    public SubsystemState(Nqn nqn, boolean allowAnyHost, List<Namespace> namespaces, List<String> allowedHosts,
                          List<LinkedPort> ports) {
        this(nqn, allowAnyHost, namespaces, allowedHosts, ports, Map.of());
    }

    /**
     * A host entry's {@code dhchap_*} attributes verbatim ("" where unset); {@link #toString()} hides the keys.
     */
    public record HostKeys(String key, String controllerKey, String hash, String dhGroup) {
        @Override
        public String toString() {
            return "HostKeys[key " + (key.isEmpty() ? "unset" : "set") + ", controller key "
                    + (controllerKey.isEmpty() ? "unset" : "set") + ", " + hash + ", " + dhGroup + "]";
        }
    }

    /** The namespace with this nsid, if the subsystem has it. */
    public Optional<Namespace> namespace(NamespaceId nsid) {
        return namespaces.stream().filter(n -> n.nsid().equals(nsid)).findFirst();
    }

    /**
     * One namespace of the subsystem.
     *
     * @param devicePath {@code device_path}, or "" when it was never set (the kernel shows "(null)")
     * @param enabled    {@code enable} is 1: the namespace is open on its device and visible to hosts
     */
    public record Namespace(NamespaceId nsid, String devicePath, boolean enabled) {
    }

    /**
     * A port that exports the subsystem, with its {@code addr_*} values verbatim; {@code tsas} is
     * {@code addr_tsas}, {@value PortAddress#PLAINTEXT} also on a kernel without it.
     */
    public record LinkedPort(PortId id, String trtype, String adrfam, String traddr, String trsvcid, String tsas) {

        /** A plaintext port. */
        public LinkedPort(PortId id, String trtype, String adrfam, String traddr, String trsvcid) {
            this(id, trtype, adrfam, traddr, trsvcid, PortAddress.PLAINTEXT);
        }

        /** Whether the port listens at exactly this address, with its transport security. */
        public boolean listensAt(PortAddress address) {
            return address.matches(Map.of("addr_trtype", trtype, "addr_adrfam", adrfam, "addr_traddr", traddr,
                    "addr_trsvcid", trsvcid, PortAddress.TSAS, tsas));
        }

        /** Whether the port admits TLS connections only. */
        public boolean tls() {
            return tsas.equals(PortAddress.TLS13);
        }

        /** The address in the form {@link PortAddress#toString()} uses, e.g. {@code tcp://10.0.0.5:4420}. */
        public String address() {
            String host = adrfam.equals(PortAddress.AddressFamily.IPV6.configfsValue()) ? "[" + traddr + "]" : traddr;
            return trtype + "://" + host + ":" + trsvcid + (tls() ? " (TLS)" : "");
        }
    }
}
