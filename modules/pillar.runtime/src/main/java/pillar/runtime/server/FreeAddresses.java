package pillar.runtime.server;

import java.io.IOException;
import java.net.BindException;
import java.net.InetSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.logging.Logger;

/**
 * Waits, within a deadline, until every TCP address a workload is about to listen on can be bound,
 * trying a bind as the server will (SO_REUSEADDR, as the JDK sets on every server socket, so the
 * connections an earlier instance left in TIME_WAIT never count). An address still in use is logged
 * once with its holder ({@link PortHolder}) and tried every {@link #POLL}; one still in use at the
 * deadline, or one that cannot be bound at all (no such local address), is a {@link ListenException}.
 * A restarted workload whose previous instance is still exiting (a SIGKILLed process holds its sockets
 * until its last thread leaves the kernel) therefore comes up once the port is free.
 */
final class FreeAddresses {
    private static final Logger LOG = Logger.getLogger(FreeAddresses.class.getName());
    static final Duration POLL = Duration.ofMillis(250);

    private final PortHolder holders;

    FreeAddresses(PortHolder holders) {
        this.holders = holders;
    }

    /** Returns once each of {@code addresses} (port 0: any free port, never waited for) can be bound. */
    void await(List<InetSocketAddress> addresses, long deadlineNanos) {
        for (InetSocketAddress address : addresses) {
            if (address.getPort() == 0) {
                continue;
            }
            boolean logged = false;
            while (true) {
                Optional<IOException> failure = tryBind(address);
                if (failure.isEmpty()) {
                    if (logged) {
                        LOG.info(() -> describe(address) + " is free now");
                    }
                    break;
                }
                if (!(failure.get() instanceof BindException) || !inUse(failure.get())) {
                    throw new ListenException("cannot listen on " + describe(address) + ": " + failure.get().getMessage()
                            + " (is it an address of this host?)");
                }
                String holder = holders.describe(address.getPort());
                if (System.nanoTime() - deadlineNanos >= 0) {
                    throw new ListenException("cannot listen on " + describe(address) + ": the address is in use, " + holder
                            + "; stop that process or give this workload another port");
                }
                if (!logged) {
                    LOG.warning(describe(address) + " is in use, " + holder + "; waiting for it to be free");
                    logged = true;
                }
                sleep();
            }
        }
    }

    private static boolean inUse(IOException failure) {
        return String.valueOf(failure.getMessage()).toLowerCase(java.util.Locale.ROOT).contains("in use");
    }

    private static String describe(InetSocketAddress address) {
        return address.getHostString() + ":" + address.getPort();
    }

    private static Optional<IOException> tryBind(InetSocketAddress address) {
        try (ServerSocketChannel probe = ServerSocketChannel.open()) {
            probe.bind(address);
            return Optional.empty();
        } catch (IOException e) {
            return Optional.of(e);
        }
    }

    private static void sleep() {
        try {
            Thread.sleep(POLL);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ListenException("interrupted while waiting for a port to be free");
        }
    }
}
