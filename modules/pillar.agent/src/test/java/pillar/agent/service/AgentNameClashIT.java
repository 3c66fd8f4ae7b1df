package pillar.agent.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import pillar.agent.AgentMain;
import pillar.agent.config.AgentConfig;
import pillar.agent.configfs.FakeConfigfsTree;
import pillar.runtime.server.CertificateFiles;
import pillar.runtime.server.PeerNames;
import pillar.testkit.TestPki;

/**
 * An agent whose own certificate carries a name of {@code agent.tls.client-names} could call every
 * other agent as the controller: it refuses to start, and such a certificate renewed under a running
 * agent is not taken (the previous one stays in use).
 */
class AgentNameClashIT {
    private static final String CONTROLLER = AgentTlsIT.CONTROLLER;

    @TempDir
    Path dir;

    @Test
    void anAgentCertificateNamedLikeTheControllerRefusesToStart() throws Exception {
        TestPki pki = new TestPki(dir, "pki");
        TestPki.Issued both = pki.issue("both", Instant.now().plus(Duration.ofDays(1)), "storage-1.pillar-agent", CONTROLLER);
        AgentConfig config = AgentTlsIT.config(dir, Optional.of(new AgentConfig.TlsFiles(both.cert(), both.key(), pki.caFile(),
                List.of(CONTROLLER))));

        assertThatThrownBy(() -> AgentMain.start(config, Map.of("fast", new CountingBackend("fast")),
                FakeConfigfsTree.create().target()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("agent.tls: ")
                .hasMessageContaining("names [" + CONTROLLER + "]")
                .hasMessageContaining("agent.tls.client-names [" + CONTROLLER + "]")
                .hasMessageContaining("could pass for that peer");
    }

    @Test
    void aRenewalNamedLikeTheControllerKeepsThePreviousCertificate() throws Exception {
        TestPki pki = new TestPki(dir, "pki");
        Instant tomorrow = Instant.now().plus(Duration.ofDays(1));
        TestPki.Issued own = pki.issue("own", tomorrow, "storage-1.pillar-agent");
        TestPki.Issued clash = pki.issue("clash", tomorrow, CONTROLLER);
        Path cert = dir.resolve("tls.crt");
        Path key = dir.resolve("tls.key");
        Files.copy(own.cert(), cert);
        Files.copy(own.key(), key);
        CertificateFiles files = new CertificateFiles(cert, key, pki.caFile(), "agent.tls",
                new PeerNames(Set.of(CONTROLLER), "agent.tls.client-names"));
        assertThat(files.current().dnsNames()).containsExactly("storage-1.pillar-agent");

        Files.copy(clash.cert(), cert, StandardCopyOption.REPLACE_EXISTING);
        Files.copy(clash.key(), key, StandardCopyOption.REPLACE_EXISTING);
        Files.setLastModifiedTime(cert, java.nio.file.attribute.FileTime.from(Instant.now().plusSeconds(5)));

        CertificateFiles.Loaded after = files.current();
        assertThat(after.epoch()).isEqualTo(1);
        assertThat(after.dnsNames()).containsExactly("storage-1.pillar-agent");
    }
}
