package pillar.agent.state;

import java.util.UUID;
import java.util.regex.Pattern;

import pillar.api.value.InvalidValueException;

/**
 * The identity of one pillar-csi installation, carried by every volume it creates (an LVM tag, a
 * ZFS property value), so that two installations sharing a volume group or pool never adopt, grow
 * or delete each other's volumes. Configured ({@code agent.installation-id}; the Helm chart gives
 * every agent of a release the same) or generated at first start and kept in the state identity.
 *
 * <p>Grammar: 1 to 128 characters of {@code [A-Za-z0-9_+.:-]}, starting with a letter or digit: a
 * subset of what an LVM tag allows ({@code [A-Za-z0-9_+.-/=!:&#]}) without the characters LVM or a
 * shell treat specially, and a valid ZFS user property value.
 */
public record InstallationId(String value) {
    public static final int MAX_LENGTH = 128;
    private static final Pattern GRAMMAR = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_+.:-]{0,127}");

    /**
     * The installation of agents started in-process (tests, benchmarks) without configuring one: a
     * configured agent ({@code AgentConfig.from}) never uses it unless it is configured.
     */
    public static final InstallationId EMBEDDED = new InstallationId("embedded");

    public InstallationId {
        if (!GRAMMAR.matcher(value).matches()) {
            throw new InvalidValueException("agent.installation-id", "must be 1 to " + MAX_LENGTH
                    + " characters of A-Z a-z 0-9 _ + . : - starting with a letter or digit (it becomes an LVM tag), is '"
                    + printable(value) + "'");
        }
    }

    public static InstallationId of(String value) {
        return new InstallationId(value);
    }

    /** A new random identity (a UUID), for a first start without a configured one. */
    public static InstallationId random() {
        return new InstallationId(UUID.randomUUID().toString());
    }

    @Override
    public String toString() {
        return value;
    }

    private static String printable(String value) {
        return value.chars().allMatch(c -> c >= 0x20 && c < 0x7f) && value.length() <= 2 * MAX_LENGTH ? value : "<unprintable>";
    }
}
