package pillar.agent.configfs;

import static pillar.agent.configfs.KernelError.Code.EBUSY;
import static pillar.agent.configfs.KernelError.Code.EEXIST;
import static pillar.agent.configfs.KernelError.Code.EINVAL;
import static pillar.agent.configfs.KernelError.Code.ENOENT;
import static pillar.agent.configfs.KernelError.Code.ERANGE;
import static pillar.agent.configfs.KernelParsers.U32_MAX;
import static pillar.agent.configfs.KernelParsers.bit;
import static pillar.agent.configfs.KernelParsers.firstLine;
import static pillar.agent.configfs.KernelParsers.kstrtobool;
import static pillar.agent.configfs.KernelParsers.kstrtou32;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;

import pillar.agent.configfs.FakeNvmet.Attribute;
import pillar.agent.configfs.FakeNvmetHosts.Host;
import pillar.agent.configfs.FakeNvmet.Item;

/** The subsystem side of {@link FakeNvmet}: {@code subsystems/<nqn>/} with its allowed hosts and namespaces. */
final class FakeNvmetSubsystems {
    private static final int MAX_ANA_GROUPS = 128;
    private static final Pattern UUID = Pattern.compile(
            "[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}");

    private FakeNvmetSubsystems() {
    }

    static final class Subsystem extends Item {
        private final FakeNvmet kernel;
        boolean allowAnyHost;
        final List<Host> hosts = new ArrayList<>();

        boolean released;

        Subsystem(FakeNvmet kernel) {
            this.kernel = kernel;
        }

        boolean admits(String host) {
            return allowAnyHost || hosts.stream().anyMatch(h -> h.name.equals(host));
        }

        @Override
        void release() {
            released = true;
        }

        @Override
        Map<String, Attribute> attributes() {
            Map<String, Attribute> a = new LinkedHashMap<>();
            a.put("attr_allow_any_host", new Attribute(() -> bit(allowAnyHost), page -> {
                boolean allow = kstrtobool(page);
                if (allow && !hosts.isEmpty()) {
                    throw new KernelError(EINVAL); // "Can't set allow_any_host when explicit hosts are set!"
                }
                allowAnyHost = allow;
            }));
            a.put("attr_cntlid_max", Attribute.plain("65519"));
            a.put("attr_cntlid_min", Attribute.plain("1"));
            a.put("attr_model", Attribute.plain("Linux"));
            a.put("attr_pi_enable", Attribute.plain("0"));
            a.put("attr_qid_max", Attribute.plain("128"));
            a.put("attr_serial", Attribute.plain(HexFormat.of().formatHex(kernel.randomBytes(10))));
            a.put("attr_version", Attribute.plain("1.3"));
            return a;
        }

        @Override
        Map<String, Item> defaultGroups() {
            return Map.of("allowed_hosts", new AllowedHosts(this), "namespaces", new Namespaces(kernel));
        }
    }

    private static final class AllowedHosts extends Item {
        private final Subsystem subsystem;

        AllowedHosts(Subsystem subsystem) {
            this.subsystem = subsystem;
        }

        @Override
        boolean acceptsLinks() {
            return true;
        }

        @Override
        void allowLink(Item target) throws KernelError {
            if (!(target instanceof Host host)) {
                throw new KernelError(EINVAL); // "can only link hosts into the allowed_hosts directory!"
            }
            if (subsystem.allowAnyHost) {
                throw new KernelError(EINVAL); // "can't add hosts when allow_any_host is set!"
            }
            if (subsystem.hosts.stream().anyMatch(h -> h.name.equals(host.name))) {
                throw new KernelError(EEXIST);
            }
            subsystem.hosts.add(host);
        }

        @Override
        void dropLink(Item target) {
            subsystem.hosts.remove(target);
        }
    }

    private static final class Namespaces extends Item {
        private final FakeNvmet kernel;

        Namespaces(FakeNvmet kernel) {
            this.kernel = kernel;
        }

        @Override
        Item make(String name) throws KernelError {
            if (!KernelNumbers.isNumber(name)) {
                throw new KernelError(EINVAL);
            }
            long nsid = KernelNumbers.parse(name, U32_MAX).orElseThrow(() -> new KernelError(ERANGE));
            if (nsid == 0 || nsid == U32_MAX) {
                throw new KernelError(EINVAL); // "invalid nsid"
            }
            return new Namespace(kernel);
        }
    }

    private static final class Namespace extends Item {
        private final FakeNvmet kernel;
        private String devicePath; // null until written: shown as "(null)"
        private boolean enabled;
        private boolean bufferedIo;

        Namespace(FakeNvmet kernel) {
            this.kernel = kernel;
        }

        @Override
        Map<String, Attribute> attributes() {
            Map<String, Attribute> a = new LinkedHashMap<>();
            a.put("ana_grpid", anaGroupId());
            a.put("buffered_io", new Attribute(() -> bit(bufferedIo), page -> {
                boolean value = kstrtobool(page);
                if (enabled) {
                    throw new KernelError(EINVAL); // "disable ns before setting buffered_io value."
                }
                bufferedIo = value;
            }));
            a.put("device_nguid", whileDisabled("00000000-0000-0000-0000-000000000000", KernelParsers::nguid));
            a.put("device_path", new Attribute(() -> devicePath == null ? "(null)" : devicePath, page -> {
                if (enabled) {
                    throw new KernelError(EBUSY);
                }
                String path = firstLine(page);
                if (path.isEmpty()) {
                    throw new KernelError(EINVAL);
                }
                devicePath = path;
            }));
            a.put("device_uuid", whileDisabled(KernelParsers.uuid(kernel.randomBytes(16)), page -> {
                String text = firstLine(page);
                if (!UUID.matcher(text).matches()) {
                    throw new KernelError(EINVAL);
                }
                return text.toLowerCase(Locale.ROOT);
            }));
            a.put("enable", new Attribute(() -> bit(enabled), page -> {
                if (kstrtobool(page)) {
                    enable();
                } else {
                    enabled = false;
                }
            }));
            a.put("revalidate_size", new Attribute(null, page -> {
                if (!kstrtobool(page) || !enabled) {
                    throw new KernelError(EINVAL); // "enable ns before revalidate."
                }
            }));
            return a;
        }

        private void enable() throws KernelError {
            if (enabled) {
                return;
            }
            if (devicePath == null) {
                throw new KernelError(EINVAL); // lookup_bdev(NULL): "failed to open block device (null): (-22)"
            }
            if (!kernel.isBlockDevice(Path.of(devicePath))) {
                throw new KernelError(ENOENT); // "failed to open block device ...: (-2)"
            }
            enabled = true;
        }

        private Attribute whileDisabled(String initial, Parser parser) {
            String[] value = {initial};
            return new Attribute(() -> value[0], page -> {
                if (enabled) {
                    throw new KernelError(EBUSY);
                }
                value[0] = parser.parse(page);
            });
        }

        private static Attribute anaGroupId() {
            long[] value = {1};
            return new Attribute(() -> Long.toString(value[0]), page -> {
                long id = kstrtou32(page);
                if (id < 1 || id > MAX_ANA_GROUPS) {
                    throw new KernelError(EINVAL);
                }
                value[0] = id;
            });
        }

        @Override
        void release() {
            enabled = false; // rmdir of an enabled namespace disables it first
        }
    }

    @FunctionalInterface
    private interface Parser {
        String parse(String page) throws KernelError;
    }
}
