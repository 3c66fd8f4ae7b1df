package pillar.agent.configfs;

import static pillar.agent.configfs.KernelError.Code.EINVAL;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import pillar.agent.configfs.FakeNvmet.Attribute;
import pillar.agent.configfs.FakeNvmet.Item;

/**
 * {@code hosts/<hostnqn>} of {@link FakeNvmet}. Without authentication (Debian's 6.1) an empty
 * directory; with it (CONFIG_NVME_TARGET_AUTH, Debian's 6.12) the four {@code dhchap_*} attributes of
 * {@code drivers/nvme/target/configfs.c}: a key write is checked only as {@code nvmet_auth_set_key}
 * checks it ({@code sscanf(page, "DHHC-1:%hhd:%*s")}, the transform at most 3) and kept verbatim, so a
 * secret with a bad CRC or length is accepted here and refused only at connect; an empty write clears
 * the key; hash and group take the kernel's names ({@code sysfs_streq}); a new entry has
 * {@code hmac(sha256)} and {@code null}. Measured on Debian's 6.12.117: a bad-CRC key is kept and read
 * back verbatim, transform 04 and a non-DHHC-1 text are EINVAL, a single NUL byte clears a key.
 */
final class FakeNvmetHosts {
    /** What {@code sscanf("DHHC-1:%hhd:%*s")} assigns: leading spaces, a sign, digits. */
    private static final Pattern KEY_PREFIX = Pattern.compile("DHHC-1:\\s*([+-]?\\d+)");

    private FakeNvmetHosts() {
    }

    /** {@code hosts/<hostnqn>}. */
    static final class Host extends Item {
        final String name;
        private final boolean auth;
        String key = "";
        String controllerKey = "";
        String hash = HostAuth.HASHES.getFirst();
        String dhGroup = HostAuth.DH_GROUPS.getFirst();

        Host(String name, boolean auth) {
            this.name = name;
            this.auth = auth;
        }

        /** Whether the host must authenticate (its entry holds a key). */
        boolean requiresAuth() {
            return !key.isEmpty();
        }

        @Override
        Map<String, Attribute> attributes() {
            if (!auth) {
                return Map.of();
            }
            Map<String, Attribute> a = new LinkedHashMap<>();
            a.put("dhchap_key", new Attribute(() -> key, page -> key = checkedKey(page)));
            a.put("dhchap_ctrl_key", new Attribute(() -> controllerKey, page -> controllerKey = checkedKey(page)));
            a.put("dhchap_hash", new Attribute(() -> hash, page -> hash = named(page, HostAuth.HASHES)));
            a.put("dhchap_dhgroup", new Attribute(() -> dhGroup, page -> dhGroup = named(page, HostAuth.DH_GROUPS)));
            return a;
        }
    }

    private static String checkedKey(String page) throws KernelError {
        String value = KernelParsers.cString(page);
        if (value.isEmpty()) {
            return "";
        }
        Matcher m = KEY_PREFIX.matcher(value);
        if (!m.lookingAt()) {
            throw new KernelError(EINVAL);
        }
        int transform;
        try {
            transform = Integer.parseInt(m.group(1)) & 0xff; // %hhd: an unsigned char in the end
        } catch (NumberFormatException e) {
            transform = 0xff;
        }
        if (transform > 3) {
            throw new KernelError(EINVAL); // "Invalid DH-HMAC-CHAP hash id"
        }
        return value;
    }

    private static String named(String page, List<String> names) throws KernelError {
        Optional<String> name = names.stream().filter(n -> KernelParsers.sysfsStreq(page, n)).findFirst();
        if (name.isEmpty()) {
            throw new KernelError(EINVAL);
        }
        return name.get();
    }
}
