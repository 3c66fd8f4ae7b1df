package pillar.agent.backend.zfs;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

import pillar.agent.backend.BackendException;
import pillar.runtime.exec.CommandResult;

/**
 * What {@code zfs send -n} prints of a stream, as zfs 2.1.11 prints it (captured in the VM: test resources
 * {@code pillar/agent/backend/zfs/}): {@code -nP} a line {@code size<TAB><bytes>}; {@code -nv -t TOKEN}
 * the token's contents, an nvlist with the line {@code bytes = 0x<hex>} (the bytes of the stream the
 * partial receive holds). Either may come on stdout or stderr; both are read.
 */
final class ZfsStreams {
    private static final Pattern SIZE = Pattern.compile("(?m)^size\\t(\\d+)\\s*$");
    private static final Pattern BYTES = Pattern.compile("(?m)^\\s*bytes = (0x[0-9a-fA-F]+|\\d+)\\s*$");

    private ZfsStreams() {
    }

    /** The estimated bytes of the stream {@code zfs send -nP} describes. */
    static long size(CommandResult result) {
        Matcher m = SIZE.matcher(result.stdout() + "\n" + result.stderr());
        if (!m.find()) {
            throw new BackendException(BackendException.Kind.FAILED, "zfs send -nP printed no size line: " + result.stdout().strip());
        }
        return Long.parseLong(m.group(1));
    }

    /** The bytes of the stream a partial receive holds, from {@code zfs send -nv -t TOKEN}. */
    static long resumedAt(CommandResult result) {
        Matcher m = BYTES.matcher(result.stdout() + "\n" + result.stderr());
        if (!m.find()) {
            throw new BackendException(BackendException.Kind.FAILED, "zfs send -nv -t printed no bytes line: "
                    + (result.stdout() + result.stderr()).strip());
        }
        String value = m.group(1);
        return value.startsWith("0x") ? Long.parseUnsignedLong(value.substring(2), 16) : Long.parseLong(value);
    }
}
