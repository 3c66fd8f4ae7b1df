package pillar.agent.nfs;

/**
 * What nfsd makes of root on a client (AUTH_SYS: the server believes the uid the client sends).
 * {@code no_root_squash}: root on the client is root on the export, what pods running as root and
 * kubelet's fsGroup ownership change need; the default, and what an export recorded before the
 * option has. {@code root_squash}: uid and gid 0 become the anonymous 65534; every other uid passes
 * as it is (docs/security.md).
 */
public enum NfsSquash {
    NO_ROOT_SQUASH("no_root_squash"),
    ROOT_SQUASH("root_squash");

    private final String option;

    NfsSquash(String option) {
        this.option = option;
    }

    /** The exportfs option, also the form the durable record holds. */
    public String option() {
        return option;
    }

    /** The squash of this exportfs option; anything else is {@link IllegalArgumentException}. */
    public static NfsSquash ofOption(String option) {
        for (NfsSquash squash : values()) {
            if (squash.option.equals(option)) {
                return squash;
            }
        }
        throw new IllegalArgumentException("not root_squash or no_root_squash: '" + String.valueOf(option).replaceAll("[^\\x20-\\x7e]", "?") + "'");
    }

    @Override
    public String toString() {
        return option;
    }
}
