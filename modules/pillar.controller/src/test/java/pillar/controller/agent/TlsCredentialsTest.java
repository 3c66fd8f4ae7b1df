package pillar.controller.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileTime;
import java.time.Instant;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import pillar.testkit.TestPki;

/**
 * Renewed certificate files (cert-manager rewrites the Secret) are read again; half-written,
 * missing or mismatched ones are not used.
 */
class TlsCredentialsTest {
    @TempDir
    Path dir;

    TestPki pki;
    AgentTlsFiles files;
    TlsCredentials credentials;
    TlsCredentials.Current first;

    @BeforeEach
    void credentials() throws Exception {
        pki = new TestPki(dir, "ca");
        files = TestAgentTls.issue(pki, "controller", "localhost");
        credentials = new TlsCredentials(files);
        first = credentials.current();
    }

    @Test
    void changedFilesAreReadAgain() throws Exception {
        assertThat(credentials.current()).isSameAs(first);

        // a renewal in progress: the key is garbage for a moment; the working credentials stay
        String key = Files.readString(files.key());
        Files.writeString(files.key(), "half written");
        Files.setLastModifiedTime(files.key(), FileTime.from(Instant.now().plusSeconds(60)));
        assertThat(credentials.current()).isSameAs(first);

        AgentTlsFiles renewed = TestAgentTls.issue(pki, "controller", "localhost");
        assertThat(renewed.key()).isEqualTo(files.key());
        Files.setLastModifiedTime(files.key(), FileTime.from(Instant.now().plusSeconds(120)));
        assertThat(credentials.current().epoch()).isEqualTo(first.epoch() + 1);
        assertThat(Files.readString(files.key())).isNotEqualTo(key);
    }

    @Test
    void aKeyOfAnotherCertificateKeepsTheWorkingCredentialsAndRefusesAtStart() throws Exception {
        AgentTlsFiles other = TestAgentTls.issue(pki, "other", "localhost");
        Files.copy(other.key(), files.key(), StandardCopyOption.REPLACE_EXISTING);
        assertThat(credentials.current()).as("the certificate with another's key").isSameAs(first);
        assertThatThrownBy(() -> new TlsCredentials(files)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("agents.tls").hasMessageContaining("is not the private key of the certificate");

        Files.copy(other.cert(), files.cert(), StandardCopyOption.REPLACE_EXISTING);
        assertThat(credentials.current().epoch()).as("the pair complete again").isEqualTo(first.epoch() + 1);

        Files.delete(files.ca());
        TlsCredentials.Current renewed = credentials.current();
        assertThat(renewed.epoch()).as("a CA file briefly missing").isEqualTo(first.epoch() + 1);
    }
}
