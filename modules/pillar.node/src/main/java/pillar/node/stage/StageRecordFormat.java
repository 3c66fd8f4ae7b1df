package pillar.node.stage;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import pillar.api.csi.v1.VolumeCapability.AccessMode.Mode;
import pillar.api.value.InvalidValueException;
import pillar.api.value.Nqn;
import pillar.api.value.VolumeId;
import pillar.node.fs.FsType;
import pillar.node.mount.MountOptions;
import pillar.node.mount.NfsExport;
import pillar.node.nvme.Controller;
import pillar.node.nvme.FabricsTarget;

/**
 * The text form of a {@link StageRecord}: a header line, then {@code key=value} lines, every key
 * exactly once except {@code publication}, which repeats. Parsing is strict: an unknown, missing or
 * repeated key, or a value that fails its type's grammar, is an error, never a default.
 *
 * <pre>
 * pillar-csi-stage-record 1
 * volume=pvc-1a2b
 * phase=staged
 * staging=/var/lib/kubelet/plugins/kubernetes.io/csi/pillar.csi.io/ab12/globalmount
 * fs-type=ext4                 (or "block")
 * mount-flags=noatime,nodev    (may be empty)
 * access-mode=SINGLE_NODE_MULTI_WRITER
 * nqn=nqn.2024-01.io.pillar-csi:pvc-1a2b
 * transport=tcp
 * traddr=10.0.0.5
 * trsvcid=4420
 * ctrl-loss-tmo=600
 * reconnect-delay=10
 * nr-io-queues=0
 * host-nqn=nqn.2014-08.org.nvmexpress:uuid:...  (only for a publication's own host NQN)
 * controller=nvme3             (empty until connected)
 * device=nvme1n1               (empty until found)
 * publication=rw SINGLE_NODE_MULTI_WRITER noatime,nodev /var/lib/kubelet/pods/.../mount
 * </pre>
 *
 * <p>An NFS volume's record has {@code fs-type=nfs4} and, instead of the NVMe keys from {@code nqn}
 * to {@code device}, {@code nfs-server}, {@code nfs-export}, {@code nfs-client} and, over RPC-with-TLS,
 * {@code tls=tls1.3}. Records written before NFS (all NVMe-oF) read as they always did.
 */
public final class StageRecordFormat {
    static final String HEADER = "pillar-csi-stage-record 1";
    private static final String BLOCK = "block";
    private static final String PUBLICATION = "publication";
    private static final Set<String> COMMON_KEYS = Set.of("volume", "phase", "staging", "fs-type", "mount-flags",
            "access-mode");
    private static final Set<String> NVME_KEYS = Set.of("nqn", "transport", "traddr", "trsvcid", "ctrl-loss-tmo",
            "reconnect-delay", "nr-io-queues", "controller", "device");
    /** The host NQN a publication connects as, when it is not the node's (per-publication DH-HMAC-CHAP keys). */
    private static final String HOST_NQN = "host-nqn";
    /** Written only for a TLS target, so the records of plaintext ones read as before. */
    private static final String TLS = "tls";
    private static final Set<String> NFS_KEYS = Set.of("nfs-server", "nfs-export", "nfs-client");
    private static final Set<String> KEYS = union(COMMON_KEYS, NVME_KEYS, NFS_KEYS, Set.of(HOST_NQN, TLS));

    private StageRecordFormat() {
    }

    public static String format(StageRecord record) {
        StringBuilder out = new StringBuilder(HEADER).append('\n');
        line(out, "volume", record.volume().value());
        line(out, "phase", record.phase().name().toLowerCase(java.util.Locale.ROOT));
        line(out, "staging", record.stagingPath().toString());
        line(out, "fs-type", record.nfs().isPresent() ? NfsExport.FS_TYPE
                : record.fsType().map(FsType::kernelName).orElse(BLOCK));
        line(out, "mount-flags", String.join(",", record.mountFlags()));
        line(out, "access-mode", record.accessMode().name());
        if (record.nfs().isPresent()) {
            NfsExport e = record.nfs().get();
            line(out, "nfs-server", e.server());
            line(out, "nfs-export", e.path());
            line(out, "nfs-client", e.client());
            if (e.tls()) {
                line(out, TLS, "tls1.3");
            }
            publications(out, record);
            return out.toString();
        }
        FabricsTarget t = record.target();
        line(out, "nqn", t.nqn().value());
        line(out, "transport", t.transport());
        line(out, "traddr", t.traddr());
        line(out, "trsvcid", String.valueOf(t.trsvcid()));
        line(out, "ctrl-loss-tmo", String.valueOf(t.ctrlLossTmo()));
        line(out, "reconnect-delay", String.valueOf(t.reconnectDelay()));
        line(out, "nr-io-queues", String.valueOf(t.nrIoQueues()));
        t.host().ifPresent(h -> line(out, HOST_NQN, h.value()));
        if (t.tls()) {
            line(out, TLS, "tls1.3");
        }
        line(out, "controller", record.controller().map(Controller::name).orElse(""));
        line(out, "device", record.device().orElse(""));
        publications(out, record);
        return out.toString();
    }

    private static void publications(StringBuilder out, StageRecord record) {
        for (Publication p : record.publications()) {
            line(out, PUBLICATION, (p.readOnly() ? "ro" : "rw") + " " + p.accessMode().name() + " "
                    + (p.mountFlags().isEmpty() ? "-" : String.join(",", p.mountFlags())) + " " + p.target());
        }
    }

    /** Parses a record; {@code source} names the file in errors. */
    public static StageRecord parse(String text, String source) {
        String[] lines = text.split("\n", -1);
        if (lines.length < 2 || !lines[0].equals(HEADER) || !lines[lines.length - 1].isEmpty()) {
            throw new StageRecordException(source + ": not a stage record (expected the header '" + HEADER
                    + "' and complete lines)");
        }
        Map<String, String> values = new LinkedHashMap<>();
        List<String> publications = new ArrayList<>();
        for (int i = 1; i < lines.length - 1; i++) {
            String line = lines[i];
            int eq = line.indexOf('=');
            if (eq <= 0) {
                throw new StageRecordException(source + ": line " + (i + 1) + " is not key=value");
            }
            String key = line.substring(0, eq);
            String value = line.substring(eq + 1);
            if (key.equals(PUBLICATION)) {
                publications.add(value);
            } else if (!KEYS.contains(key)) {
                throw new StageRecordException(source + ": unknown key '" + key + "' on line " + (i + 1));
            } else if (values.put(key, value) != null) {
                throw new StageRecordException(source + ": key '" + key + "' appears twice");
            }
        }
        boolean nfs = NfsExport.FS_TYPE.equals(values.get("fs-type"));
        for (String key : union(COMMON_KEYS, nfs ? NFS_KEYS : NVME_KEYS)) {
            if (!values.containsKey(key)) {
                throw new StageRecordException(source + ": key '" + key + "' is missing");
            }
        }
        for (String key : nfs ? union(NVME_KEYS, Set.of(HOST_NQN)) : NFS_KEYS) {
            if (values.containsKey(key)) {
                throw new StageRecordException(source + ": key '" + key + "' does not belong to "
                        + (nfs ? "an NFS" : "an NVMe-oF") + " volume's record");
            }
        }
        try {
            return build(values, publications);
        } catch (IllegalArgumentException e) {
            throw new StageRecordException(source + ": " + e.getMessage(), e);
        }
    }

    private static StageRecord build(Map<String, String> v, List<String> publicationLines) {
        if (NfsExport.FS_TYPE.equals(v.get("fs-type"))) {
            return buildNfs(v, publicationLines);
        }
        Optional<FsType> fsType = v.get("fs-type").equals(BLOCK) ? Optional.empty()
                : Optional.of(FsType.parse(required(v, "fs-type")));
        List<String> flags = flags(v.get("mount-flags"), fsType);
        FabricsTarget target = new FabricsTarget(Nqn.of(v.get("nqn")), v.get("transport"), v.get("traddr"),
                integer(v, "trsvcid"), integer(v, "ctrl-loss-tmo"), integer(v, "reconnect-delay"),
                integer(v, "nr-io-queues"), v.containsKey(HOST_NQN) ? Optional.of(Nqn.of(v.get(HOST_NQN))) : Optional.empty(),
                tls(v));
        List<Publication> publications = publications(publicationLines, text -> flags(text, fsType));
        return new StageRecord(VolumeId.of(v.get("volume")), phase(v.get("phase")), Path.of(required(v, "staging")),
                fsType, flags, mode(v.get("access-mode")), target,
                v.get("controller").isEmpty() ? Optional.empty() : Optional.of(Controller.parse(v.get("controller"))),
                v.get("device").isEmpty() ? Optional.empty() : Optional.of(v.get("device")), publications);
    }

    private static boolean tls(Map<String, String> v) {
        String value = v.getOrDefault(TLS, "");
        if (!value.isEmpty() && !value.equals("tls1.3")) {
            throw new IllegalArgumentException(TLS + " must be tls1.3 when present");
        }
        return !value.isEmpty();
    }

    private static StageRecord buildNfs(Map<String, String> v, List<String> publicationLines) {
        java.util.function.Function<String, List<String>> nfsFlags = text -> text.isEmpty() ? List.of()
                : MountOptions.parseForNfs(List.of(text)).canonical();
        NfsExport export = new NfsExport(v.get("nfs-server"), v.get("nfs-export"), v.get("nfs-client"), tls(v));
        return new StageRecord(VolumeId.of(v.get("volume")), phase(v.get("phase")), Path.of(required(v, "staging")),
                Optional.empty(), nfsFlags.apply(v.get("mount-flags")), mode(v.get("access-mode")), Optional.empty(),
                Optional.of(export), Optional.empty(), Optional.empty(), publications(publicationLines, nfsFlags));
    }

    private static List<Publication> publications(List<String> publicationLines,
                                                  java.util.function.Function<String, List<String>> flags) {
        List<Publication> publications = new ArrayList<>();
        for (String line : publicationLines) {
            String[] parts = line.split(" ", 4);
            if (parts.length != 4 || !(parts[0].equals("ro") || parts[0].equals("rw"))) {
                throw new IllegalArgumentException("publication '" + line + "' is not '<ro|rw> <mode> <flags|-> <path>'");
            }
            publications.add(new Publication(Path.of(parts[3]), parts[0].equals("ro"), mode(parts[1]),
                    parts[2].equals("-") ? List.of() : flags.apply(parts[2])));
        }
        return publications;
    }

    @SafeVarargs
    private static Set<String> union(Set<String>... sets) {
        Set<String> all = new java.util.HashSet<>();
        for (Set<String> set : sets) {
            all.addAll(set);
        }
        return Set.copyOf(all);
    }

    private static List<String> flags(String text, Optional<FsType> fsType) {
        if (text.isEmpty()) {
            return List.of();
        }
        if (fsType.isEmpty()) {
            throw new IllegalArgumentException("a Block volume has no mount flags");
        }
        return MountOptions.parse(List.of(text), fsType.get()).canonical();
    }

    private static Phase phase(String text) {
        return switch (text) {
            case "attaching" -> Phase.ATTACHING;
            case "staged" -> Phase.STAGED;
            default -> throw new IllegalArgumentException("phase must be attaching or staged");
        };
    }

    private static Mode mode(String text) {
        try {
            Mode mode = Mode.valueOf(text);
            if (mode == Mode.UNKNOWN || mode == Mode.UNRECOGNIZED) {
                throw new IllegalArgumentException("access mode " + text + " is not a real mode");
            }
            return mode;
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("access-mode must be a CSI access mode name", e);
        }
    }

    private static String required(Map<String, String> v, String key) {
        String value = v.get(key);
        if (value.isEmpty()) {
            throw new IllegalArgumentException(key + " must not be empty");
        }
        return value;
    }

    private static int integer(Map<String, String> v, String key) {
        String value = v.get(key);
        if (!value.matches("-?[0-9]{1,9}")) {
            throw new IllegalArgumentException(key + " must be a decimal integer");
        }
        return Integer.parseInt(value);
    }

    private static void line(StringBuilder out, String key, String value) {
        if (value.indexOf('\n') >= 0) {
            throw new IllegalArgumentException(key + " contains a line break");
        }
        out.append(key).append('=').append(value).append('\n');
    }
}
