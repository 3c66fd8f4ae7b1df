package pillar.api.value;

import java.util.regex.Pattern;

/**
 * An NVMe Qualified Name (NVM Express base specification, "NVMe Qualified Names"): 13 to 223 bytes,
 * {@code nqn.<yyyy-mm>.<reverse domain>[:<string>]}, e.g. {@code nqn.2014-08.org.nvmexpress:uuid:<uuid>}.
 * NQNs become configfs directory names, so pillar-csi accepts only the characters letters, digits,
 * '.', '-', '_' and ':' (no '/', no whitespace, no control characters).
 */
public record Nqn(String value) {
    public static final int MIN_LENGTH = 13;
    public static final int MAX_LENGTH = 223;

    private static final Pattern FORMAT = Pattern.compile(
            "nqn\\.[0-9]{4}-(0[1-9]|1[0-2])\\.[A-Za-z0-9]([A-Za-z0-9.-]*[A-Za-z0-9])?(:[A-Za-z0-9._:-]+)?");

    public Nqn {
        Grammar.check("nqn", value, MIN_LENGTH, MAX_LENGTH, "A-Z, a-z, 0-9, '.', '-', '_' and ':'",
                c -> Grammar.alnum(c) || c == '.' || c == '-' || c == '_' || c == ':');
        if (!FORMAT.matcher(value).matches()) {
            throw new InvalidValueException("nqn",
                    "must look like nqn.yyyy-mm.<reverse domain>[:<string>] (NVMe base specification)");
        }
    }

    public static Nqn of(String value) {
        return new Nqn(value);
    }

    @Override
    public String toString() {
        return value;
    }
}
