package pillar.agent.backend.zfs;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

import pillar.agent.backend.Texts;

/**
 * An OpenZFS release as {@code zfs version} prints it ({@code zfs-2.1.11-1+deb12u1} for the tools,
 * {@code zfs-kmod-2.3.2-2~bpo12+2} for the loaded module) or {@code /sys/module/zfs/version} holds it
 * ({@code 2.3.2-2~bpo12+2}): its numbers and its {@code text} without the prefix. Tools and module of one
 * release line (major.minor, {@link #sameLine}) work together; another patch level of one line is a warning.
 */
public record ZfsVersion(int major, int minor, int patch, String text) {
    private static final Pattern RELEASE = Pattern.compile("(?:zfs-(?:kmod-)?)?((\\d{1,4})\\.(\\d{1,4})(?:\\.(\\d{1,4}))?\\S*)");

    /** The release in one version string, with or without its {@code zfs-} or {@code zfs-kmod-} prefix. */
    public static ZfsVersion parse(String version) {
        Matcher m = RELEASE.matcher(version.strip());
        if (!m.matches()) {
            throw new IllegalArgumentException("'" + Texts.printable(version.strip()) + "' is not an OpenZFS version");
        }
        return new ZfsVersion(Integer.parseInt(m.group(2)), Integer.parseInt(m.group(3)),
                m.group(4) == null ? 0 : Integer.parseInt(m.group(4)), m.group(1));
    }

    /** The tools' release in {@code zfs version}'s output: its {@code zfs-} line (not the module's {@code zfs-kmod-}). */
    public static ZfsVersion userland(String zfsVersionOutput) {
        return zfsVersionOutput.lines().map(String::strip).filter(line -> line.startsWith("zfs-") && !line.startsWith("zfs-kmod-"))
                .findFirst().map(ZfsVersion::parse).orElseThrow(() -> new IllegalArgumentException(
                        "zfs version printed no version of the tools: '" + Texts.oneLine(zfsVersionOutput) + "'"));
    }

    /** Whether {@code other} is of this release line: the same major.minor. */
    public boolean sameLine(ZfsVersion other) {
        return major == other.major && minor == other.minor;
    }

    /** The release line, {@code major.minor}. */
    public String line() {
        return major + "." + minor;
    }

    @Override
    public String toString() {
        return text;
    }
}
