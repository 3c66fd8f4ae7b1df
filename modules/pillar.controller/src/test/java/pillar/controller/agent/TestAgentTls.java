package pillar.controller.agent;

import pillar.testkit.TestPki;

/** The test kit's certificates as the controller reads them: its agent TLS files. */
final class TestAgentTls {
    private TestAgentTls() {
    }

    /** A certificate of {@code pki} for {@code cn}, 127.0.0.1 and the DNS names, valid for a day. */
    static AgentTlsFiles issue(TestPki pki, String cn, String... dnsNames) throws Exception {
        TestPki.Issued issued = pki.issue(cn, dnsNames);
        return new AgentTlsFiles(issued.cert(), issued.key(), issued.ca());
    }
}
