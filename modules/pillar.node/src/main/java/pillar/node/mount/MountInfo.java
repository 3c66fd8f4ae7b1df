package pillar.node.mount;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Parses {@code /proc/self/mountinfo} (proc(5)):
 * {@code 36 35 98:0 /mnt1 /mnt2 rw,noatime master:1 - ext3 /dev/root rw,errors=continue}. Fields
 * 1-6 are fixed, then zero or more optional fields ended by a lone "-", then the filesystem type, the
 * source and the superblock options. The kernel escapes space, tab, newline and backslash in paths
 * as octal ({@code \040}, {@code \011}, {@code \012}, {@code \134}). A malformed line is an error,
 * never skipped: deciding "not mounted" from a misread table would be worse than failing.
 */
public final class MountInfo {
    private final List<MountEntry> entries;

    private MountInfo(List<MountEntry> entries) {
        this.entries = List.copyOf(entries);
    }

    public static MountInfo parse(String text) {
        List<MountEntry> entries = new ArrayList<>();
        int lineNumber = 0;
        for (String line : text.split("\n")) {
            lineNumber++;
            if (line.isBlank()) {
                continue;
            }
            entries.add(parseLine(line, lineNumber));
        }
        return new MountInfo(entries);
    }

    public List<MountEntry> entries() {
        return entries;
    }

    /**
     * The mount on top at {@code mountPoint} (the last one mounted there, which is what path lookup
     * sees), if any.
     */
    public Optional<MountEntry> topAt(Path mountPoint) {
        Path wanted = mountPoint.toAbsolutePath().normalize();
        MountEntry top = null;
        for (MountEntry entry : entries) {
            if (entry.mountPoint().equals(wanted)) {
                top = entry; // mountinfo lists mounts in mount order, so later ones cover earlier ones
            }
        }
        return Optional.ofNullable(top);
    }

    /** How many mounts are stacked at {@code mountPoint}. */
    public int countAt(Path mountPoint) {
        Path wanted = mountPoint.toAbsolutePath().normalize();
        return (int) entries.stream().filter(e -> e.mountPoint().equals(wanted)).count();
    }

    private static MountEntry parseLine(String line, int lineNumber) {
        String[] fields = line.split(" ");
        int separator = -1;
        for (int i = 6; i < fields.length; i++) {
            if (fields[i].equals("-")) {
                separator = i;
                break;
            }
        }
        if (fields.length < 10 || separator < 0 || fields.length != separator + 4) {
            throw new IllegalArgumentException("mountinfo line " + lineNumber + " is malformed: " + line);
        }
        try {
            return new MountEntry(
                    Integer.parseInt(fields[0]),
                    Integer.parseInt(fields[1]),
                    checkDevice(fields[2], lineNumber),
                    unescape(fields[3]),
                    Path.of(unescape(fields[4])),
                    fields[5],
                    unescape(fields[separator + 1]),
                    unescape(fields[separator + 2]),
                    unescape(fields[separator + 3]));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("mountinfo line " + lineNumber + " has a bad mount ID: " + line, e);
        }
    }

    private static String checkDevice(String device, int lineNumber) {
        if (!device.matches("[0-9]+:[0-9]+")) {
            throw new IllegalArgumentException("mountinfo line " + lineNumber + " has a bad major:minor '" + device + "'");
        }
        return device;
    }

    /** Decodes the kernel's {@code \ooo} octal escapes; a backslash not followed by three octal digits stays. */
    static String unescape(String field) {
        if (field.indexOf('\\') < 0) {
            return field;
        }
        StringBuilder out = new StringBuilder(field.length());
        for (int i = 0; i < field.length(); i++) {
            char c = field.charAt(i);
            if (c == '\\' && isOctal(field, i + 1)) {
                out.append((char) Integer.parseInt(field.substring(i + 1, i + 4), 8));
                i += 3;
            } else {
                out.append(c);
            }
        }
        return out.toString();
    }

    private static boolean isOctal(String s, int from) {
        if (from + 3 > s.length()) {
            return false;
        }
        for (int i = from; i < from + 3; i++) {
            char c = s.charAt(i);
            if (c < '0' || c > '7') {
                return false;
            }
        }
        return true;
    }
}
