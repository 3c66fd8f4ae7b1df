package pillar.agent.configfs;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

import pillar.api.value.Nqn;

/**
 * The difference between an export as wanted and what the kernel holds, in words for the drift
 * report ("namespace 1 disabled", "not linked to port tcp://10.0.0.5:4420"). A pure function of its
 * arguments; reading the kernel is {@link NvmetTarget#inspect}'s job:
 *
 * <pre>{@code
 * List<String> drift = target.inspect(wanted.subsystem())
 *         .map(actual -> ExportDrift.of(wanted, actual))
 *         .orElseGet(() -> ExportDrift.missing(wanted));
 * }</pre>
 */
public final class ExportDrift {
    private ExportDrift() {
    }

    /** The report for a subsystem that does not exist at all. */
    public static List<String> missing(WantedExport wanted) {
        return List.of("subsystem " + wanted.subsystem() + " missing");
    }

    /**
     * What differs between {@code wanted} and {@code actual}, one sentence each; empty when the kernel
     * holds exactly the wanted export. Reports, in this order: the namespace (missing, device,
     * disabled) and namespaces not wanted, the host policy, each allowed host not wanted and each
     * wanted host not allowed, each authenticating host whose keys, hash or group differ (keys never
     * shown), the wanted port link, and links to ports at other addresses.
     *
     * @throws IllegalArgumentException when {@code actual} is another subsystem
     */
    public static List<String> of(WantedExport wanted, SubsystemState actual) {
        if (!actual.nqn().equals(wanted.subsystem())) {
            throw new IllegalArgumentException("comparing " + wanted.subsystem() + " with the state of " + actual.nqn());
        }
        List<String> drift = new ArrayList<>();
        namespaces(wanted, actual, drift);
        hosts(wanted, actual, drift);
        ports(wanted, actual, drift);
        return List.copyOf(drift);
    }

    private static void namespaces(WantedExport wanted, SubsystemState actual, List<String> drift) {
        String name = "namespace " + wanted.nsid();
        String device = wanted.device().toString();
        actual.namespace(wanted.nsid()).ifPresentOrElse(ns -> {
            if (ns.devicePath().isEmpty()) {
                drift.add(name + " has no device, wanted " + device);
            } else if (!ns.devicePath().equals(device)) {
                drift.add(name + " points at " + ns.devicePath() + ", wanted " + device);
            }
            if (!ns.enabled()) {
                drift.add(name + " disabled");
            }
        }, () -> drift.add(name + " missing"));
        for (SubsystemState.Namespace ns : actual.namespaces()) {
            if (!ns.nsid().equals(wanted.nsid())) {
                drift.add("namespace " + ns.nsid() + " (" + describe(ns) + ") present but not wanted");
            }
        }
    }

    private static String describe(SubsystemState.Namespace ns) {
        return (ns.devicePath().isEmpty() ? "no device" : ns.devicePath()) + (ns.enabled() ? ", enabled" : ", disabled");
    }

    private static void hosts(WantedExport wanted, SubsystemState actual, List<String> drift) {
        if (wanted.aclEnabled() && actual.allowAnyHost()) {
            drift.add("any host may connect, wanted only the allowed hosts");
        } else if (!wanted.aclEnabled() && !actual.allowAnyHost()) {
            drift.add("only allowed hosts may connect, wanted any host");
        }
        Set<String> wantedHosts = new TreeSet<>();
        if (wanted.aclEnabled()) {
            wanted.allowedHosts().stream().map(Nqn::value).forEach(wantedHosts::add);
        }
        for (String host : actual.allowedHosts()) {
            if (!wantedHosts.contains(host)) {
                drift.add("host " + host + " allowed but not wanted");
            }
        }
        for (String host : wantedHosts) {
            if (!actual.allowedHosts().contains(host)) {
                drift.add("host " + host + " not allowed but wanted");
            }
        }
        if (wanted.aclEnabled()) {
            wanted.auth().forEach((host, auth) -> {
                if (actual.allowedHosts().contains(host.value())) {
                    keys(host.value(), auth, actual.hostKeys().get(host.value()), drift);
                }
            });
        }
    }

    /** The keys are compared, never shown: the report says only which one differs. */
    private static void keys(String host, HostAuth wanted, SubsystemState.HostKeys actual, List<String> drift) {
        String name = "host " + host + ": ";
        if (actual == null || actual.key().isEmpty()) {
            drift.add(name + "no DH-HMAC-CHAP key, wanted one");
            return;
        }
        if (!actual.key().equals(wanted.hostKey().value())) {
            drift.add(name + "its DH-HMAC-CHAP key differs from the record");
        }
        String wantedController = wanted.controllerKey().map(k -> k.value()).orElse("");
        if (wantedController.isEmpty() && !actual.controllerKey().isEmpty()) {
            drift.add(name + "has a DH-HMAC-CHAP controller key, wanted one-way authentication");
        } else if (!wantedController.equals(actual.controllerKey())) {
            drift.add(name + "its DH-HMAC-CHAP controller key differs from the record");
        }
        if (!actual.hash().equals(wanted.hash())) {
            drift.add(name + "dhchap_hash is " + actual.hash() + ", wanted " + wanted.hash());
        }
        if (!actual.dhGroup().equals(wanted.dhGroup())) {
            drift.add(name + "dhchap_dhgroup is " + actual.dhGroup() + ", wanted " + wanted.dhGroup());
        }
    }

    private static void ports(WantedExport wanted, SubsystemState actual, List<String> drift) {
        if (actual.ports().stream().noneMatch(p -> p.listensAt(wanted.address()))) {
            drift.add("not linked to port " + wanted.address());
        }
        for (SubsystemState.LinkedPort port : actual.ports()) {
            if (!port.listensAt(wanted.address())) {
                drift.add("linked to port " + port.id() + " at " + port.address() + " but not wanted");
            }
        }
    }
}
