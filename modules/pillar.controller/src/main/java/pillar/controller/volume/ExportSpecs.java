package pillar.controller.volume;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

import pillar.api.agent.v1.ExportProtocol;
import pillar.api.agent.v1.ExportSpec;
import pillar.api.agent.v1.NfsRootSquash;
import pillar.api.value.InvalidValueException;
import pillar.controller.crd.Grammars;
import pillar.controller.crd.PillarVolumeState;
import pillar.controller.crd.ProtocolKind;
import pillar.controller.crd.VolumeExport;

/**
 * Export specs: checking one before it is used, reading the operator's recovery annotation
 * ({@value PillarVolumeState#EXPORT_SPEC_ANNOTATION}), and the agent's wire form. Nothing here
 * guesses: a missing or doubtful value is refused with a message that says what to write.
 */
public final class ExportSpecs {
    /** The annotation's form, for messages. */
    public static final String FORM = "[protocol=nfs,]bindAddress=<ip>,port=<1-65535>,aclEnabled=<true|false>[,traddr=<ip>]"
            + "[,authRequired=true][,tlsRequired=true][,rootSquash=true]";
    private static final Set<String> KEYS = Set.of("protocol", "bindAddress", "port", "aclEnabled", "traddr", "authRequired",
            "tlsRequired", "rootSquash");

    private ExportSpecs() {
    }

    /**
     * Reads {@code [protocol=nfs,]bindAddress=10.0.0.5,port=4420,aclEnabled=true[,traddr=10.0.0.5][,authRequired=true][,tlsRequired=true]}
     * (protocol nvmeofTcp unless given):
     * every key once, no other key, IP literals, a port of 1 to 65535. traddr defaults to the bind
     * address and must be given when that binds every address; authRequired, tlsRequired and rootSquash (nfs only) default
     * to false.
     *
     * @throws InvalidValueException naming what is wrong
     */
    public static VolumeExport parse(String annotation) {
        if (annotation == null || annotation.length() > 256) {
            throw invalid("must be " + FORM + " (at most 256 characters)");
        }
        Map<String, String> fields = new LinkedHashMap<>();
        for (String part : annotation.strip().split(",", -1)) {
            int eq = part.indexOf('=');
            String key = eq < 0 ? part.strip() : part.substring(0, eq).strip();
            if (eq < 0 || !KEYS.contains(key)) {
                throw invalid(Grammars.printable(part) + " is not one of " + FORM);
            }
            if (fields.put(key, part.substring(eq + 1).strip()) != null) {
                throw invalid(key + " is given twice");
            }
        }
        for (String required : new String[] {"bindAddress", "port", "aclEnabled"}) {
            if (!fields.containsKey(required)) {
                throw invalid(required + " is required: " + FORM);
            }
        }
        String acl = fields.get("aclEnabled");
        if (!acl.equals("true") && !acl.equals("false")) {
            throw invalid("aclEnabled must be true or false, is " + Grammars.printable(acl));
        }
        boolean auth = flag(fields, "authRequired");
        boolean tls = flag(fields, "tlsRequired");
        boolean squash = flag(fields, "rootSquash");
        String port = fields.get("port");
        if (!port.matches("[0-9]{1,5}") || Integer.parseInt(port) < 1 || Integer.parseInt(port) > 65535) {
            throw invalid("port must be 1 to 65535, is " + Grammars.printable(port));
        }
        VolumeExport export = new VolumeExport(fields.get("bindAddress"), Integer.parseInt(port), Boolean.parseBoolean(acl),
                fields.getOrDefault("traddr", fields.get("bindAddress")));
        export.setAuthRequired(auth);
        export.setTlsRequired(tls ? Boolean.TRUE : null);
        export.setRootSquash(squash ? Boolean.TRUE : null);
        String protocol = fields.getOrDefault("protocol", "nvmeofTcp");
        switch (protocol) {
            case "nvmeofTcp" -> { }
            case "nfs" -> export.setProtocol(ProtocolKind.NFS);
            default -> throw invalid("protocol must be nvmeofTcp or nfs, is " + Grammars.printable(protocol));
        }
        String problem = problem(export);
        if (problem != null) {
            throw invalid(problem);
        }
        return export;
    }

    /** What is wrong with a recorded export spec, or null when it can be used as it is. */
    public static String problem(VolumeExport export) {
        if (export.getBindAddress() == null || !Grammars.isIpLiteral(export.getBindAddress())) {
            return "bindAddress must be an IP address of the storage node, is " + Grammars.printable(export.getBindAddress());
        }
        if (export.getPort() == null || export.getPort() < 1 || export.getPort() > 65535) {
            return "port must be 1 to 65535, is " + export.getPort();
        }
        if (export.getAclEnabled() == null) {
            return "aclEnabled must be true or false";
        }
        if (export.requiresAuth() && !export.getAclEnabled()) {
            return "authRequired needs aclEnabled=true";
        }
        if (export.requiresTls() && !export.getAclEnabled()) {
            return "tlsRequired needs aclEnabled=true";
        }
        if (export.nfs() && (!export.getAclEnabled() || export.requiresAuth())) {
            return "an nfs export always has aclEnabled=true (its client list) and no authRequired";
        }
        if (export.squashesRoot() && !export.nfs()) {
            return "rootSquash is for nfs exports only";
        }
        if (export.getTraddr() == null || !Grammars.isIpLiteral(export.getTraddr()) || Grammars.isWildcard(export.getTraddr())) {
            return "traddr must be the IP address nodes dial (not a wildcard), is " + Grammars.printable(export.getTraddr());
        }
        return null;
    }

    /** Why a volume without a usable export spec cannot be exported or published, and how to recover. */
    public static String missing(pillar.api.value.VolumeId id, String problem) {
        return PillarVolumeState.EXPORT_SPEC_MISSING + ": volume " + id + " has no usable export spec (" + problem
                + "); pillar-csi never guesses one. Record the address, port and ACL setting the volume is exported with:"
                + " kubectl annotate pillarvolumestate " + id + " " + PillarVolumeState.EXPORT_SPEC_ANNOTATION + "=" + FORM;
    }

    public static ExportSpec toProto(VolumeExport export) {
        return ExportSpec.newBuilder().setBindAddress(export.getBindAddress()).setPort(export.getPort())
                .setAclEnabled(export.getAclEnabled()).setAuthRequired(export.requiresAuth()).setTlsRequired(export.requiresTls())
                .setProtocol(export.nfs() ? ExportProtocol.EXPORT_PROTOCOL_NFS : ExportProtocol.EXPORT_PROTOCOL_NVMEOF_TCP)
                .setNfsRootSquash(export.squashesRoot() ? NfsRootSquash.NFS_ROOT_SQUASH_ON : NfsRootSquash.NFS_ROOT_SQUASH_UNSPECIFIED).build();
    }

    /** An optional flag of the annotation: true or false, false when absent. */
    private static boolean flag(Map<String, String> fields, String key) {
        String value = fields.getOrDefault(key, "false");
        if (!value.equals("true") && !value.equals("false")) {
            throw invalid(key + " must be true or false, is " + Grammars.printable(value));
        }
        return Boolean.parseBoolean(value);
    }

    private static InvalidValueException invalid(String rule) {
        return new InvalidValueException(PillarVolumeState.EXPORT_SPEC_ANNOTATION, rule);
    }
}
