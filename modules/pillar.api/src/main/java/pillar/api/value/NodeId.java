package pillar.api.value;

/**
 * A worker's CSI node ID: its Kubernetes node name, an RFC 1123 subdomain (lower-case letters,
 * digits, '-' and '.', 1 to 253 characters, each dot-separated label non-empty and starting and
 * ending with a letter or digit).
 */
public record NodeId(String value) {
    public static final int MAX_LENGTH = 253;

    public NodeId {
        Grammar.check("node_id", value, 1, MAX_LENGTH, "a-z, 0-9, '-' and '.'",
                c -> Grammar.lowerAlnum(c) || c == '-' || c == '.');
        for (String label : value.split("\\.", -1)) {
            if (label.isEmpty() || label.startsWith("-") || label.endsWith("-") || label.length() > 63) {
                throw new InvalidValueException("node_id",
                        "each dot-separated label must be 1 to 63 characters and start and end with a letter or digit");
            }
        }
    }

    public static NodeId of(String value) {
        return new NodeId(value);
    }

    @Override
    public String toString() {
        return value;
    }
}
