package pillar.node.nvme;

import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;

import pillar.api.context.PublishContext;
import pillar.api.value.InvalidValueException;
import pillar.api.value.Nqn;
import pillar.node.sys.IpLiteral;

/**
 * Where a volume's NVMe-oF subsystem is exported, and how to stay connected to it: the validated
 * form of the publish context the controller sends ({@link PublishContext}). Every value is checked
 * before it can reach the fabrics options string: the NQN by its grammar, the address as an IP
 * literal (never a host name), numbers within the kernel's ranges.
 *
 * <p>A publish context's {@code ctrlLossTmo} is bounded ({@link #MAX_CTRL_LOSS_TMO}, never -1 "forever"):
 * a controller that reconnects forever keeps I/O, and every unmount or disconnect waiting on it, stuck
 * without end. The record itself accepts the kernel's whole range, so stage records written before the
 * bound stay readable.
 *
 * @param ctrlLossTmo    seconds to keep reconnecting a lost controller (-1: forever); kernel default 600
 * @param reconnectDelay seconds between reconnect attempts; kernel default 10
 * @param nrIoQueues     I/O queues to ask for; 0 leaves the kernel's choice
 * @param host           the host NQN to connect as when it is the publication's own
 *                       ({@link PublishContext#HOST_NQN}: per-publication DH-HMAC-CHAP keys); empty: the node's
 * @param tls            the target's port admits TLS 1.3 only ({@link PublishContext#TLS}): the connect needs the
 *                       publication's pre-shared key
 */
public record FabricsTarget(Nqn nqn, String transport, String traddr, int trsvcid, int ctrlLossTmo,
                            int reconnectDelay, int nrIoQueues, Optional<Nqn> host, boolean tls) {
    public static final String TCP = "tcp";
    public static final int DEFAULT_CTRL_LOSS_TMO = 600;
    public static final int DEFAULT_RECONNECT_DELAY = 10;
    /** The longest ctrlLossTmo a publish context may ask for: one hour. */
    public static final int MAX_CTRL_LOSS_TMO = 3_600;

    private static final Pattern DECIMAL = Pattern.compile("-?[0-9]{1,10}");

    public FabricsTarget {
        if (!TCP.equals(transport)) {
            throw new InvalidValueException("transport", "must be tcp (the only transport pillar-csi ships)");
        }
        checkAddress(traddr);
        checkRange("trsvcid", trsvcid, 1, 65535);
        checkRange("ctrlLossTmo", ctrlLossTmo, -1, 86_400);
        checkRange("reconnectDelay", reconnectDelay, 1, 3_600);
        checkRange("nrIoQueues", nrIoQueues, 0, 1_024);
        java.util.Objects.requireNonNull(host, "host");
    }

    /** A plaintext target. */
    public FabricsTarget(Nqn nqn, String transport, String traddr, int trsvcid, int ctrlLossTmo, int reconnectDelay,
                         int nrIoQueues, Optional<Nqn> host) {
        this(nqn, transport, traddr, trsvcid, ctrlLossTmo, reconnectDelay, nrIoQueues, host, false);
    }

    /** A plaintext target connected to as the node's own host NQN. */
    public FabricsTarget(Nqn nqn, String transport, String traddr, int trsvcid, int ctrlLossTmo, int reconnectDelay,
                         int nrIoQueues) {
        this(nqn, transport, traddr, trsvcid, ctrlLossTmo, reconnectDelay, nrIoQueues, Optional.empty());
    }

    /** The host NQN to connect as: the publication's own, else the node's. */
    public Nqn hostOr(Nqn node) {
        return host.orElse(node);
    }

    /**
     * The target described by a publish context. Required: nqn, transport, traddr, trsvcid. Keys this
     * node does not know are ignored (a newer controller may add some); known keys must be valid (hostNqn an
     * NQN), and
     * ctrlLossTmo 0 to {@link #MAX_CTRL_LOSS_TMO} ({@link #DEFAULT_CTRL_LOSS_TMO} when absent).
     */
    public static FabricsTarget fromPublishContext(Map<String, String> context) {
        int ctrlLossTmo = optionalNumber(context, PublishContext.CTRL_LOSS_TMO, DEFAULT_CTRL_LOSS_TMO);
        if (ctrlLossTmo < 0 || ctrlLossTmo > MAX_CTRL_LOSS_TMO) {
            throw new InvalidValueException("publish_context." + PublishContext.CTRL_LOSS_TMO, "must be 0 to "
                    + MAX_CTRL_LOSS_TMO + " seconds (a bounded reconnect; -1, forever, is refused), is " + ctrlLossTmo);
        }
        return new FabricsTarget(
                Nqn.of(required(context, PublishContext.NQN)),
                required(context, PublishContext.TRANSPORT),
                required(context, PublishContext.TRADDR),
                number(context, PublishContext.TRSVCID, required(context, PublishContext.TRSVCID)),
                ctrlLossTmo,
                optionalNumber(context, PublishContext.RECONNECT_DELAY, DEFAULT_RECONNECT_DELAY),
                optionalNumber(context, PublishContext.NR_IO_QUEUES, 0),
                Optional.ofNullable(context.get(PublishContext.HOST_NQN)).filter(h -> !h.isEmpty()).map(FabricsTarget::hostNqn),
                tls(context));
    }

    /** {@link PublishContext#TLS}: absent plaintext, {@value PublishContext#TLS_13} TLS, anything else refused. */
    private static boolean tls(Map<String, String> context) {
        String value = context.getOrDefault(PublishContext.TLS, "");
        if (!value.isEmpty() && !value.equals(PublishContext.TLS_13)) {
            throw new InvalidValueException("publish_context." + PublishContext.TLS, "must be " + PublishContext.TLS_13
                    + " (TLS 1.3 with a pre-shared key, the only NVMe/TCP TLS pillar-csi knows) or absent");
        }
        return !value.isEmpty();
    }

    /** Same subsystem at the same transport address (the host NQN aside: {@link #sameConnection}). */
    public boolean sameEndpoint(FabricsTarget other) {
        return nqn.equals(other.nqn) && transport.equals(other.transport) && traddr.equals(other.traddr)
                && trsvcid == other.trsvcid;
    }

    /** {@link #sameEndpoint} as the same host NQN: a controller to one is a controller to the other. */
    public boolean sameConnection(FabricsTarget other) {
        return sameEndpoint(other) && host.equals(other.host) && tls == other.tls;
    }

    /** For messages: {@code nqn.... at tcp:10.0.0.5:4420}. */
    public String describe() {
        return nqn + " at " + transport + ":" + (traddr.contains(":") ? "[" + traddr + "]" : traddr) + ":" + trsvcid
                + (tls ? " (TLS)" : "");
    }

    private static Nqn hostNqn(String value) {
        try {
            return Nqn.of(value);
        } catch (InvalidValueException e) {
            throw new InvalidValueException("publish_context." + PublishContext.HOST_NQN, e.getMessage());
        }
    }

    private static void checkAddress(String traddr) {
        IpLiteral.check("traddr", traddr);
    }

    private static void checkRange(String field, int value, int min, int max) {
        if (value < min || value > max) {
            throw new InvalidValueException(field, "must be " + min + " to " + max + ", is " + value);
        }
    }

    private static String required(Map<String, String> context, String key) {
        String value = context.get(key);
        if (value == null || value.isEmpty()) {
            throw new InvalidValueException("publish_context." + key, "is required (did ControllerPublishVolume run?)");
        }
        return value;
    }

    private static int optionalNumber(Map<String, String> context, String key, int fallback) {
        String value = context.get(key);
        return value == null || value.isEmpty() ? fallback : number(context, key, value);
    }

    private static int number(Map<String, String> context, String key, String value) {
        if (!DECIMAL.matcher(value).matches()) {
            throw new InvalidValueException("publish_context." + key, "must be a decimal integer");
        }
        try {
            return Integer.parseInt(value);
        } catch (NumberFormatException e) {
            throw new InvalidValueException("publish_context." + key, "is out of range");
        }
    }
}
