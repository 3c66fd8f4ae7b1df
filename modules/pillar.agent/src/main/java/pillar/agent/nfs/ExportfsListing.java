package pillar.agent.nfs;

import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

import pillar.api.value.InvalidValueException;

/**
 * Parses what {@code exportfs -v} prints: per entry {@code <path padded to 14>\t<client>(<options>)},
 * or, for a path longer than 14 characters, the path alone and {@code \t\t<client>(<options>)} on the
 * next line (nfs-utils' dump(); captured in the VM, docs/nfs.md); the options give the fsid, the
 * access ({@code rw} or {@code ro}), the squash ({@code root_squash} or {@code no_root_squash}) and the transport
 * ({@code xprtsec=tls:mtls}, listed last by nfs-utils 2.8 when set; none: any). Entries whose client is no single IP
 * literal (a subnet, a wildcard, a name: not this agent's) are left out; any other shape is an
 * {@link NfsServerException}, never guessed around.
 */
final class ExportfsListing {
    private ExportfsListing() {
    }

    static List<NfsExport> parse(String stdout) {
        List<NfsExport> exports = new ArrayList<>();
        read(stdout, (path, host, options) -> client(host).ifPresent(client -> exports.add(new NfsExport(path, client, fsid(options),
                access(options), squash(options), transport(options)))));
        return exports;
    }

    /** Every path the listing exports, to any client (a subnet, a wildcard, a name too), each once, in listing order. */
    static List<Path> paths(String stdout) {
        Set<Path> paths = new LinkedHashSet<>();
        read(stdout, (path, host, options) -> paths.add(path));
        return List.copyOf(paths);
    }

    /** One entry of the listing: its path, its client as printed and its options. */
    private interface Entry {
        void accept(Path path, String host, String options);
    }

    private static void read(String stdout, Entry entries) {
        Path path = null;
        for (String token : stdout.strip().split("\\s+")) {
            if (token.isEmpty()) {
                continue;
            }
            if (token.startsWith("/")) {
                if (path != null) {
                    throw unreadable("path " + path + " has no client", stdout);
                }
                try {
                    path = Path.of(token);
                } catch (InvalidPathException e) {
                    throw unreadable("'" + token + "' is no path", stdout);
                }
                continue;
            }
            int open = token.indexOf('(');
            if (path == null || open <= 0 || !token.endsWith(")")) {
                throw unreadable("'" + token + "' is no client(options) after a path", stdout);
            }
            entries.accept(path, token.substring(0, open), token.substring(open + 1, token.length() - 1));
            path = null;
        }
        if (path != null) {
            throw unreadable("path " + path + " has no client", stdout);
        }
    }

    private static java.util.Optional<NfsClient> client(String host) {
        String bare = host.startsWith("[") && host.endsWith("]") ? host.substring(1, host.length() - 1) : host;
        try {
            return java.util.Optional.of(NfsClient.parse("client", bare));
        } catch (InvalidValueException notOneAddress) {
            return java.util.Optional.empty();
        }
    }

    private static String fsid(String options) {
        for (String option : options.split(",")) {
            if (option.startsWith("fsid=")) {
                return option.substring("fsid=".length());
            }
        }
        return "";
    }

    /** {@code ro} among the options: read-only; else read-write (exportfs -v lists {@code rw} or {@code ro}). */
    private static NfsAccess access(String options) {
        return List.of(options.split(",")).contains("ro") ? NfsAccess.READ_ONLY : NfsAccess.READ_WRITE;
    }

    /** {@code root_squash} among the options: squashed; else not (exportfs -v lists one of the two). */
    private static NfsSquash squash(String options) {
        return List.of(options.split(",")).contains("root_squash") ? NfsSquash.ROOT_SQUASH : NfsSquash.NO_ROOT_SQUASH;
    }

    /** The {@code xprtsec=} option's modes ({@link NfsTransport#ofListed}); none: {@link NfsTransport#ANY}. */
    private static NfsTransport transport(String options) {
        String modes = null;
        for (String option : options.split(",")) {
            if (option.startsWith("xprtsec=")) {
                modes = option.substring("xprtsec=".length());
            }
        }
        return NfsTransport.ofListed(modes);
    }

    private static NfsServerException unreadable(String what, String stdout) {
        return new NfsServerException("exportfs -v printed what this agent cannot read (" + what + "): '"
                + stdout.replaceAll("[^\\x20-\\x7e\\t\\n]", "?") + "'");
    }
}
