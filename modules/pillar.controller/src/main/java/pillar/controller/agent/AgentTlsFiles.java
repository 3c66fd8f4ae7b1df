package pillar.controller.agent;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The controller's client certificate for mutual TLS with agents, as mounted PEM files (a Secret,
 * supplied or issued by cert-manager): {@code cert} and {@code key} (PKCS#8) identify the
 * controller, {@code ca} verifies the agents.
 */
public record AgentTlsFiles(Path cert, Path key, Path ca) {
    public AgentTlsFiles {
        for (Path file : new Path[] {cert, key, ca}) {
            if (!Files.isReadable(file)) {
                throw new IllegalArgumentException("agents.tls: " + file + " is not a readable file");
            }
        }
    }
}
