package pillar.node.nvme;

import java.nio.charset.StandardCharsets;
import java.util.Optional;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import pillar.api.value.DhchapSecret;
import pillar.api.value.Nqn;

/**
 * The protocol of {@code /dev/nvme-fabrics}: one comma-separated options string written to connect,
 * one line read back on the same open file ({@code instance=<n>,cntlid=<m>}).
 */
public final class FabricsOptions {
    private static final Pattern UUID_NQN = Pattern.compile("nqn\\.2014-08\\.org\\.nvmexpress:uuid:([0-9a-fA-F-]{36})");
    private static final Pattern REPLY = Pattern.compile("instance=(\\d{1,6}),cntlid=(\\d{1,5})\\s*");

    private FabricsOptions() {
    }

    /**
     * The connect options for {@code target} as {@code host}. Every value is validated by its type,
     * so none can carry a comma or an '=' that would add an option.
     */
    public static String connect(FabricsTarget target, Nqn host) {
        return connect(target, host, Optional.empty());
    }

    /**
     * {@link #connect(FabricsTarget, Nqn)} with DH-HMAC-CHAP secrets ({@link DhchapSecret} admits
     * neither ',' nor '='-separated extra options: its base64 part ends in '=' padding only). The
     * result holds secrets: it goes to the kernel only, never to a message or a log.
     */
    public static String connect(FabricsTarget target, Nqn host, Optional<FabricsAuth> auth) {
        return connect(target, host, auth, Optional.empty());
    }

    /** {@link #connect(FabricsTarget, Nqn, Optional)} over TLS with the key {@code tls} names (serials only). */
    public static String connect(FabricsTarget target, Nqn host, Optional<FabricsAuth> auth, Optional<FabricsTls> tls) {
        StringBuilder options = new StringBuilder()
                .append("nqn=").append(target.nqn().value())
                .append(",transport=").append(target.transport())
                .append(",traddr=").append(target.traddr())
                .append(",trsvcid=").append(target.trsvcid())
                .append(",hostnqn=").append(host.value())
                .append(",hostid=").append(hostId(host))
                .append(",ctrl_loss_tmo=").append(target.ctrlLossTmo())
                .append(",reconnect_delay=").append(target.reconnectDelay());
        if (target.nrIoQueues() > 0) {
            options.append(",nr_io_queues=").append(target.nrIoQueues());
        }
        tls.ifPresent(t -> options.append(",tls,keyring=").append(t.keyring()).append(",tls_key=").append(t.key()));
        auth.ifPresent(a -> {
            options.append(",dhchap_secret=").append(a.hostSecret().value());
            a.controllerSecret().ifPresent(c -> options.append(",dhchap_ctrl_secret=").append(c.value()));
        });
        return options.toString();
    }

    /**
     * The host ID sent with {@code host}: the UUID of a {@code nqn.2014-08.org.nvmexpress:uuid:<uuid>}
     * NQN (nvme-cli's convention), else a name-based UUID of the NQN; the same for one NQN every time,
     * another for another NQN. Kernels since 6.x refuse (EINVAL, "found same hostid ... but different
     * hostnqn") a connect whose host ID the kernel already knows with another NQN, and without the option
     * every connect carries the kernel's one default host ID.
     */
    static UUID hostId(Nqn host) {
        Matcher uuid = UUID_NQN.matcher(host.value());
        if (uuid.matches()) {
            try {
                return UUID.fromString(uuid.group(1));
            } catch (IllegalArgumentException e) {
                // not a UUID after all: named below
            }
        }
        return UUID.nameUUIDFromBytes(host.value().getBytes(StandardCharsets.UTF_8));
    }

    /** The controller a connect created, from the kernel's answer. */
    public static Controller parseReply(String reply) {
        Matcher m = REPLY.matcher(reply);
        if (!m.matches()) {
            throw new InitiatorException("unexpected answer from the fabrics device: '" + printable(reply) + "'");
        }
        return new Controller(Integer.parseInt(m.group(1)));
    }

    private static String printable(String text) {
        StringBuilder out = new StringBuilder();
        for (char c : text.strip().toCharArray()) {
            out.append(c >= 0x20 && c < 0x7f ? c : '?');
            if (out.length() >= 80) {
                break;
            }
        }
        return out.toString();
    }
}
