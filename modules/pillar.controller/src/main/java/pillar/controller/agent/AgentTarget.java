package pillar.controller.agent;

import java.util.Optional;

import pillar.api.value.InvalidValueException;
import pillar.controller.crd.Grammars;

/**
 * Where one agent listens and how to reach it.
 *
 * @param host       an IP literal or a DNS name, checked
 * @param port       1 to 65535
 * @param security   plaintext or mutual TLS
 * @param serverName the name to verify in the agent's certificate instead of {@code host}
 */
public record AgentTarget(String host, int port, Security security, Optional<String> serverName) {
    /** The transport security of the connection. */
    public enum Security {
        PLAINTEXT, MUTUAL_TLS
    }

    public AgentTarget {
        if (!Grammars.isHost(host)) {
            throw new InvalidValueException("agent address", "must be an IP address or a DNS name, is " + Grammars.printable(host));
        }
        if (port < 1 || port > 65535) {
            throw new InvalidValueException("agent port", "must be 1 to 65535, is " + port);
        }
        if (serverName.isPresent() && !Grammars.isHost(serverName.get())) {
            throw new InvalidValueException("agent server name", "must be a DNS name or an IP address, is "
                    + Grammars.printable(serverName.get()));
        }
    }

    public static AgentTarget plaintext(String host, int port) {
        return new AgentTarget(host, port, Security.PLAINTEXT, Optional.empty());
    }

    /** {@code host:port}, with an IPv6 literal in brackets. */
    public String endpoint() {
        return (host.contains(":") ? "[" + host + "]" : host) + ":" + port;
    }

    @Override
    public String toString() {
        return endpoint() + (security == Security.MUTUAL_TLS ? " (mTLS)" : " (plaintext)");
    }
}
