package pillar.controller.crd;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Every check the CRD schema and its CEL rules make, made again in Java: an API server older than
 * 1.25 ignores the CEL rules, an object stored before a schema change was never checked against
 * it, and the test API server checks nothing. A reconciler acts on a spec only when this finds no
 * problem; otherwise it reports them in a condition with reason {@code InvalidSpec}.
 *
 * <p>Each problem names the field (as {@code kubectl explain} does) and the rule, and quotes the
 * rejected value only in printable form.
 */
public final class SpecValidator {
    private SpecValidator() {
    }

    public static List<String> problems(PillarAgentSpec spec) {
        Problems p = new Problems();
        if (spec == null) {
            return p.missing("spec").list;
        }
        boolean node = spec.getNodeName() != null;
        boolean address = spec.getAddress() != null;
        if (node == address) {
            p.add("spec", "set exactly one of nodeName (an agent on a cluster node) and address (an agent outside the cluster)");
        }
        if (node && !Grammars.isObjectName(spec.getNodeName())) {
            p.add("spec.nodeName", "must be a node name (RFC 1123 subdomain, at most 253 characters), is "
                    + Grammars.printable(spec.getNodeName()));
        }
        if (address && !Grammars.isHost(spec.getAddress())) {
            p.add("spec.address", "must be an IP address or a DNS name, is " + Grammars.printable(spec.getAddress()));
        }
        p.port("spec.port", spec.getPort());
        AgentTls tls = spec.getTls();
        if (tls != null) {
            if (tls.getMode() == null) {
                p.add("spec.tls.mode", "must be none or secret");
            } else if (tls.getMode() == AgentTls.Mode.SECRET && tls.getSecretName() == null) {
                p.add("spec.tls", "tls.mode secret needs tls.secretName");
            }
            if (tls.getSecretName() != null && !Grammars.isObjectName(tls.getSecretName())) {
                p.add("spec.tls.secretName", "must be a Secret name, is " + Grammars.printable(tls.getSecretName()));
            }
            if (tls.getServerName() != null && !Grammars.isHost(tls.getServerName())) {
                p.add("spec.tls.serverName", "must be a DNS name or an IP address, is " + Grammars.printable(tls.getServerName()));
            }
        }
        return p.list;
    }

    public static List<String> problems(PillarStoreSpec spec) {
        Problems p = new Problems();
        if (spec == null) {
            return p.missing("spec").list;
        }
        p.objectName("spec.agent", spec.getAgent(), "a PillarAgent name");
        if ((spec.getZfs() == null) == (spec.getLvm() == null)) {
            p.add("spec", "set exactly one of zfs and lvm");
        }
        ZfsStore zfs = spec.getZfs();
        if (zfs != null) {
            p.pattern("spec.zfs.pool", zfs.getPool(), Grammars.POOL_NAME, "a ZFS pool name");
            if (zfs.getParentDataset() != null) {
                p.pattern("spec.zfs.parentDataset", zfs.getParentDataset(), Grammars.DATASET_PATH,
                        "a dataset path below the pool, like k8s or k8s/volumes");
            }
            p.label("spec.zfs.backend", zfs.getBackend());
            if (zfs.getVolblocksize() != null) {
                p.pattern("spec.zfs.volblocksize", zfs.getVolblocksize(), Grammars.VOLBLOCKSIZE, "4K, 8K, 16K, 32K, 64K or 128K");
            }
            if (zfs.getLayout() == null) {
                p.add("spec.zfs.layout", "must be zvol or dataset");
            } else if (zfs.datasets() && (zfs.getVolblocksize() != null || Boolean.TRUE.equals(zfs.getSparse()))) {
                p.add("spec.zfs", "layout dataset takes no volblocksize and no sparse: true (zvol settings)");
            }
        }
        LvmStore lvm = spec.getLvm();
        if (lvm != null) {
            p.pattern("spec.lvm.volumeGroup", lvm.getVolumeGroup(), Grammars.POOL_NAME, "an LVM volume group name");
            if (lvm.getThinPool() != null) {
                p.pattern("spec.lvm.thinPool", lvm.getThinPool(), Grammars.POOL_NAME, "an LVM logical volume name");
            }
            p.label("spec.lvm.backend", lvm.getBackend());
            if (Boolean.TRUE.equals(lvm.getAcceptNonZeroingThinPool()) && lvm.getThinPool() == null) {
                p.add("spec.lvm", "acceptNonZeroingThinPool applies to a thinPool only");
            }
        }
        return p.list;
    }

    public static List<String> problems(PillarProtocolSpec spec) {
        Problems p = new Problems();
        if (spec == null) {
            return p.missing("spec").list;
        }
        if (spec.getIscsi() != null) {
            p.add("spec.iscsi", "iscsi is not supported yet: nvmeofTcp and nfs ship in this version");
        }
        if ((spec.getNvmeofTcp() == null) == (spec.getNfs() == null)) {
            p.add("spec", "set exactly one of nvmeofTcp and nfs");
            return p.list;
        }
        Nfs nfs = spec.getNfs();
        if (nfs != null) {
            String server = nfs.getServerAddress();
            if (server != null && (!Grammars.isIpLiteral(server) || Grammars.isWildcard(server))) {
                p.add("spec.nfs.serverAddress", "must be the IP address of the storage node the nodes mount from (IPv4 or"
                        + " IPv6, not a wildcard), is " + Grammars.printable(server));
            }
            if (nfs.getVersion() == null) {
                p.add("spec.nfs.version", "must be 4.2");
            }
            if (nfs.getSquash() == null) {
                p.add("spec.nfs.squash", "must be no_root_squash or root_squash");
            }
            if (nfs.getTls() == null) {
                p.add("spec.nfs.tls", "must be required or off");
            }
            return p.list;
        }
        NvmeofTcp tcp = spec.getNvmeofTcp();
        if (tcp.getBindAddress() == null) {
            p.missing("spec.nvmeofTcp.bindAddress");
        } else if (!Grammars.isIpLiteral(tcp.getBindAddress())) {
            p.add("spec.nvmeofTcp.bindAddress", "must be an IP address of the storage node (IPv4 or IPv6), is "
                    + Grammars.printable(tcp.getBindAddress()));
        }
        p.port("spec.nvmeofTcp.port", tcp.getPort());
        if (tcp.getAclEnabled() == null) {
            p.missing("spec.nvmeofTcp.aclEnabled");
        }
        if (tcp.getAuth() == null) {
            p.add("spec.nvmeofTcp.auth", "must be required or off");
        } else if (tcp.authRequired() && !Boolean.TRUE.equals(tcp.getAclEnabled())) {
            p.add("spec.nvmeofTcp.auth", "required needs aclEnabled: true (a target that admits any host authenticates none)");
        }
        if (tcp.getTls() == null) {
            p.add("spec.nvmeofTcp.tls", "must be required or off");
        } else if (tcp.tlsRequired() && !Boolean.TRUE.equals(tcp.getAclEnabled())) {
            p.add("spec.nvmeofTcp.tls", "required needs aclEnabled: true (a target that admits any host has no key for it)");
        }
        p.range("spec.nvmeofTcp.ctrlLossTmo", tcp.getCtrlLossTmo(), 1, NvmeofTcp.MAX_CTRL_LOSS_TMO);
        p.range("spec.nvmeofTcp.reconnectDelay", tcp.getReconnectDelay(), 1, 3600);
        p.range("spec.nvmeofTcp.nrIoQueues", tcp.getNrIoQueues(), 1, 1024);
        if (tcp.getCtrlLossTmo() != null && tcp.getReconnectDelay() != null && tcp.getCtrlLossTmo() < tcp.getReconnectDelay()) {
            p.add("spec.nvmeofTcp", "ctrlLossTmo must be at least reconnectDelay");
        }
        return p.list;
    }

    public static List<String> problems(PillarStorageClassSpec spec) {
        Problems p = new Problems();
        if (spec == null) {
            return p.missing("spec").list;
        }
        p.objectName("spec.store", spec.getStore(), "a PillarStore name");
        p.objectName("spec.protocol", spec.getProtocol(), "a PillarProtocol name");
        if (spec.getReclaimPolicy() == null) {
            p.missing("spec.reclaimPolicy");
        }
        if (spec.getVolumeBindingMode() == null) {
            p.missing("spec.volumeBindingMode");
        }
        if (spec.getFsType() == null) {
            p.missing("spec.fsType");
        }
        if (spec.getAllowVolumeExpansion() == null) {
            p.missing("spec.allowVolumeExpansion");
        }
        if (spec.getDefaultClass() == null) {
            p.missing("spec.defaultClass");
        }
        List<String> options = spec.getMountOptions() == null ? List.of() : spec.getMountOptions();
        if (options.size() > 32) {
            p.add("spec.mountOptions", "at most 32 options, has " + options.size());
        }
        for (int i = 0; i < options.size() && i < 32; i++) {
            p.pattern("spec.mountOptions[" + i + "]", options.get(i), Grammars.MOUNT_OPTION,
                    "one mount option (letters, digits and _.=:+/-, no comma)");
        }
        Map<String, String> parameters = spec.getParameters() == null ? Map.of() : spec.getParameters();
        parameters.forEach((key, value) -> setting(p, key, value));
        List<String> overridable = spec.getOverridable() == null ? List.of() : spec.getOverridable();
        for (int i = 0; i < overridable.size(); i++) {
            String setting = overridable.get(i);
            if (!StorageClassParameters.SETTINGS.contains(setting)) {
                p.add("spec.overridable[" + i + "]", "may only be " + String.join(", ", StorageClassParameters.SETTINGS)
                        + "; " + Grammars.printable(setting) + " is not a volume setting");
            } else if (overridable.indexOf(setting) != i) {
                p.add("spec.overridable[" + i + "]", setting + " is listed twice");
            }
        }
        return p.list;
    }

    /** Checks one volume setting by its short name; shared with the CSI service's claim annotations. */
    public static List<String> settingProblems(String field, String setting, String value) {
        Problems p = new Problems();
        checkSetting(p, field, setting, value);
        return p.list;
    }

    private static void setting(Problems p, String key, String value) {
        if (!StorageClassParameters.SETTINGS.contains(key)) {
            p.add("spec.parameters", "may only be " + String.join(", ", StorageClassParameters.SETTINGS) + "; "
                    + Grammars.printable(key) + " is not a volume setting");
            return;
        }
        checkSetting(p, "spec.parameters." + key, key, value);
    }

    private static void checkSetting(Problems p, String field, String setting, String value) {
        switch (setting) {
            case "sparse" -> {
                if (!"true".equals(value) && !"false".equals(value)) {
                    p.add(field, "must be true or false, is " + Grammars.printable(value));
                }
            }
            case "volblocksize" -> p.pattern(field, value, Grammars.VOLBLOCKSIZE, "4K, 8K, 16K, 32K, 64K or 128K");
            case "compression" -> {
                if (value == null || !List.of("on", "off", "lz4", "zstd", "gzip", "zle").contains(value)) {
                    p.add(field, "must be on, off, lz4, zstd, gzip or zle, is " + Grammars.printable(value));
                }
            }
            case "mkfsOptions" -> p.pattern(field, value, Grammars.MKFS_OPTIONS,
                    "mkfs options: words of letters, digits and -=,._: separated by single spaces");
            default -> p.add(field, "is not a volume setting; known: " + StorageClassParameters.SETTINGS);
        }
    }

    /** Collects problems in order. */
    private static final class Problems {
        private final List<String> list = new ArrayList<>();

        void add(String field, String rule) {
            list.add(field + ": " + rule);
        }

        Problems missing(String field) {
            add(field, "is required");
            return this;
        }

        void objectName(String field, String value, String what) {
            if (value == null) {
                missing(field);
            } else if (!Grammars.isObjectName(value)) {
                add(field, "must be " + what + " (RFC 1123 subdomain, at most 253 characters), is " + Grammars.printable(value));
            }
        }

        void label(String field, String value) {
            if (value == null) {
                missing(field);
            } else if (!Grammars.isLabel(value)) {
                add(field, "must be a backend name of the agent (RFC 1123 label: a-z, 0-9, '-', at most 63), is "
                        + Grammars.printable(value));
            }
        }

        void pattern(String field, String value, String regex, String what) {
            if (value == null) {
                missing(field);
            } else if (!Grammars.matches(regex, value)) {
                add(field, "must be " + what + ", is " + Grammars.printable(value));
            }
        }

        void port(String field, Integer port) {
            if (port == null) {
                missing(field);
            } else {
                range(field, port, 1, 65535);
            }
        }

        void range(String field, Integer value, int min, int max) {
            if (value != null && (value < min || value > max)) {
                add(field, "must be " + min + " to " + max + ", is " + value);
            }
        }
    }
}
