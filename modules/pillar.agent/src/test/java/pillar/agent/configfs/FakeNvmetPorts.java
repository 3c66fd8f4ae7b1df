package pillar.agent.configfs;

import static pillar.agent.configfs.KernelError.Code.EACCES;
import static pillar.agent.configfs.KernelError.Code.EEXIST;
import static pillar.agent.configfs.KernelError.Code.EINVAL;
import static pillar.agent.configfs.KernelParsers.bit;
import static pillar.agent.configfs.KernelParsers.kstrtobool;
import static pillar.agent.configfs.KernelParsers.kstrtoint;
import static pillar.agent.configfs.KernelParsers.kstrtou32;
import static pillar.agent.configfs.KernelParsers.sysfsStreq;

import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;

import pillar.agent.configfs.FakeNvmet.Attribute;
import pillar.agent.configfs.FakeNvmet.Item;
import pillar.agent.configfs.FakeNvmet.Show;
import pillar.agent.configfs.FakeNvmetSubsystems.Subsystem;

/**
 * The port side of {@link FakeNvmet}: {@code ports/<id>/} with its address, ANA groups, referrals and
 * subsystem links, and the TCP listener its first link starts (nvmet-tcp is the only transport loaded).
 */
final class FakeNvmetPorts {
    /** nvmet-tcp sets {@code param_inline_data_size} to this when the port has none (-1). */
    static final int TCP_INLINE_DATA_SIZE = 16_384;
    private static final int MAX_ANA_GROUPS = 128;

    private FakeNvmetPorts() {
    }

    static final class Port extends Item {
        private final FakeNvmet kernel;
        private String trtype = "";
        private String adrfam = "";
        private String traddr = "";
        private String trsvcid = "";
        private String treq = "not specified";
        private String tsas = "none";
        private long inlineDataSize = -1;
        private boolean piEnable;
        private final List<Subsystem> subsystems = new ArrayList<>();
        private boolean enabled;
        InetAddress listenAddress;
        long listenPort;

        Port(FakeNvmet kernel) {
            this.kernel = kernel;
        }

        @Override
        Map<String, Attribute> attributes() {
            Map<String, Attribute> a = new LinkedHashMap<>();
            a.put("addr_adrfam", choice(() -> adrfam, v -> adrfam = v, "ipv4", "ipv6", "ib", "fc", "loop"));
            a.put("addr_traddr", word(() -> traddr, v -> traddr = v, 256));
            a.put("addr_treq", choice(() -> treq, v -> treq = v, "not specified", "required", "not required"));
            a.put("addr_trsvcid", word(() -> trsvcid, v -> trsvcid = v, 32));
            a.put("addr_trtype", choice(() -> trtype, v -> trtype = v, "rdma", "fc", "tcp", "loop"));
            if (kernel.tls()) {
                a.put("addr_tsas", new Attribute(() -> tsas, this::storeTsas));
            }
            a.put("param_inline_data_size", new Attribute(() -> Long.toString(inlineDataSize), page -> {
                refuseWhileEnabled();
                inlineDataSize = kstrtoint(page);
            }));
            a.put("param_pi_enable", new Attribute(() -> bit(piEnable), page -> {
                boolean value = kstrtobool(page);
                refuseWhileEnabled();
                piEnable = value;
            }));
            return a;
        }

        @Override
        Map<String, Item> defaultGroups() {
            return Map.of("ana_groups", new AnaGroups(), "referrals", new Referrals(), "subsystems", new PortSubsystems(this));
        }

        /** {@code nvmet_port_release}: "Let inflight controllers teardown complete" (flushes {@code nvmet_wq}). */
        @Override
        void release() {
            kernel.controllers().flush();
        }

        boolean links(Subsystem subsystem) {
            return subsystems.contains(subsystem);
        }

        /**
         * {@code nvmet_addr_tsas_store} (6.7 on, TCP only): "tls1.3" needs the kernel's TLS and its keyring and
         * makes {@code addr_treq} "required" (unless a secure channel was asked already); "none" makes it "not specified".
         */
        private void storeTsas(String page) throws KernelError {
            refuseWhileEnabled();
            if (!trtype.equals("tcp")) {
                throw new KernelError(EINVAL);
            }
            if (sysfsStreq(page, "tls1.3")) {
                tsas = "tls1.3";
                treq = treq.equals("not specified") ? "required" : treq;
            } else if (sysfsStreq(page, "none")) {
                tsas = "none";
                treq = "not specified";
            } else {
                throw new KernelError(EINVAL); // "Invalid value '%s' for tsas"
            }
        }

        /** "Disable port before changing attribute": every addr_* and param_* write, even of the same value. */
        private void refuseWhileEnabled() throws KernelError {
            if (enabled) {
                throw new KernelError(EACCES);
            }
        }

        private Attribute choice(Show show, Setter set, String... names) {
            return new Attribute(show, page -> {
                refuseWhileEnabled();
                for (String name : names) {
                    if (sysfsStreq(page, name)) {
                        set.set(name);
                        return;
                    }
                }
                throw new KernelError(EINVAL); // "Invalid value '...' for ..."
            });
        }

        private Attribute word(Show show, Setter set, int maxBytes) {
            return new Attribute(show, page -> {
                if (page.getBytes(StandardCharsets.UTF_8).length > maxBytes) {
                    throw new KernelError(EINVAL);
                }
                refuseWhileEnabled();
                set.set(KernelParsers.firstWord(page));
            });
        }

        /** nvmet_enable_port, then nvmet_tcp_add_port: parse the address, then bind and listen. */
        private void enable() throws KernelError {
            if (!trtype.equals("tcp") || piEnable) {
                throw new KernelError(EINVAL); // "transport type N not supported", "T10-PI is not supported"
            }
            InetAddress address = switch (adrfam) {
                case "ipv4" -> KernelParsers.ipv4(traddr);
                case "ipv6" -> KernelParsers.ipv6(traddr);
                default -> throw new KernelError(EINVAL); // "address family N not supported"
            };
            OptionalLong port = KernelNumbers.parse(trsvcid, PortId.MAX);
            if (port.isEmpty()) {
                throw new KernelError(EINVAL); // "malformed ip/port passed"
            }
            if (inlineDataSize < 0) {
                inlineDataSize = TCP_INLINE_DATA_SIZE; // set before the bind, so even when it fails
            }
            kernel.listen(this, address, port.getAsLong()); // EADDRNOTAVAIL, EADDRINUSE
            enabled = true;
        }

        private void disable() {
            enabled = false;
            kernel.stopListening(this);
        }
    }

    @FunctionalInterface
    private interface Setter {
        void set(String value);
    }

    private static final class PortSubsystems extends Item {
        private final Port port;

        PortSubsystems(Port port) {
            this.port = port;
        }

        @Override
        boolean acceptsLinks() {
            return true;
        }

        @Override
        void allowLink(Item target) throws KernelError {
            if (!(target instanceof Subsystem subsystem)) {
                throw new KernelError(EINVAL); // "can only link subsystems into the subsystems dir.!"
            }
            if (port.subsystems.contains(subsystem)) {
                throw new KernelError(EEXIST);
            }
            if (port.subsystems.isEmpty()) {
                port.enable();
            }
            port.subsystems.add(subsystem);
        }

        @Override
        void dropLink(Item target) {
            if (port.subsystems.remove(target)) {
                port.kernel.controllers().dropped(port, (Subsystem) target);
                if (port.subsystems.isEmpty()) {
                    port.disable();
                }
            }
        }
    }

    private static final class AnaGroups extends Item {
        @Override
        Map<String, Item> defaultGroups() {
            return Map.of("1", new AnaGroup());
        }

        @Override
        Item make(String name) throws KernelError {
            long id = kstrtou32(name);
            if (id <= 1 || id > MAX_ANA_GROUPS) {
                throw new KernelError(EINVAL);
            }
            return new AnaGroup();
        }
    }

    private static final class AnaGroup extends Item {
        @Override
        Map<String, Attribute> attributes() {
            return Map.of("ana_state", Attribute.plain("optimized"));
        }
    }

    private static final class Referrals extends Item {
        @Override
        Item make(String name) {
            return new Referral();
        }
    }

    private static final class Referral extends Item {
        @Override
        Map<String, Attribute> attributes() {
            Map<String, Attribute> a = new LinkedHashMap<>();
            for (String name : List.of("addr_adrfam", "addr_traddr", "addr_trsvcid", "addr_trtype")) {
                a.put(name, Attribute.plain(""));
            }
            a.put("addr_portid", Attribute.plain("0"));
            a.put("addr_treq", Attribute.plain("not specified"));
            a.put("enable", Attribute.plain("0"));
            return a;
        }
    }
}
