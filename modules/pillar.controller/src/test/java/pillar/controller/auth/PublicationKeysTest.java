package pillar.controller.auth;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import pillar.api.context.StageSecrets;

/** A node's TLS key entry shares the digest of its DH-HMAC-CHAP entries and stays within the Secret key grammar. */
class PublicationKeysTest {
    private static final String NODE = "nqn.2014-08.org.nvmexpress:uuid:3c5e1d2a-0000-4000-8000-000000000001";

    @Test
    void theTlsEntryOfANodeIsNamedByTheDigestOfItsStageEntries() {
        String entry = PublicationKeys.tlsKey(NODE);
        assertThat(entry).matches("tls-[0-9a-f]{40}\\.psk");
        String digest = entry.substring("tls-".length(), entry.length() - ".psk".length());
        assertThat(StageSecrets.hostKey(NODE)).isEqualTo("dhchap-" + digest + ".secret");
        assertThat(PublicationKeys.tlsKey(NODE + "2")).isNotEqualTo(entry);
    }
}
