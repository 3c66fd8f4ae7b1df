package pillar.node.nvme;

import java.util.regex.Pattern;

import pillar.api.value.InvalidValueException;

/** An NVMe controller of this host: {@code /sys/class/nvme/nvme<instance>}. */
public record Controller(int instance) {
    private static final Pattern NAME = Pattern.compile("nvme(0|[1-9][0-9]{0,5})");

    public Controller {
        if (instance < 0) {
            throw new InvalidValueException("controller", "instance must not be negative");
        }
    }

    /** The controller named {@code nvme<n>}; anything else (a path, a namespace name) is refused. */
    public static Controller parse(String name) {
        if (name == null || !NAME.matcher(name).matches()) {
            throw new InvalidValueException("controller", "must be nvme<number>");
        }
        return new Controller(Integer.parseInt(name.substring(4)));
    }

    public static boolean isName(String name) {
        return NAME.matcher(name).matches();
    }

    public String name() {
        return "nvme" + instance;
    }

    @Override
    public String toString() {
        return name();
    }
}
