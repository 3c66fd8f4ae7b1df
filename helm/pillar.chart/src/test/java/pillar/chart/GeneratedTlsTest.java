package pillar.chart;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyFactory;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLServerSocket;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManagerFactory;

import io.fabric8.kubernetes.api.model.Secret;
import io.helidon.common.configurable.Resource;
import io.helidon.common.tls.Tls;
import io.helidon.common.tls.TlsClientAuth;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The default mode, generated: the chart's own CA, the controller's certificate and one per agent
 * (storage node or external agent), in the Secrets both workloads mount, loadable by both and good
 * for a mutual-TLS handshake with the names each side checks, a node's certificate for its own name.
 */
class GeneratedTlsTest {
    private static final String PREFIX = "pillar-pillar-csi-";
    private static final String CLIENT_AUTH = "1.3.6.1.5.5.7.3.2";
    private static final String SERVER_AUTH = "1.3.6.1.5.5.7.3.1";
    private static final int DNS = 2;
    private static final int IP = 7;

    @TempDir
    Path dir;

    @Test
    void byDefaultTheControllersSecretAndOnePerAgentFromOneCaEachAgentMountingItsOwn() {
        Rendered rendered = HelmChart.render(AgentRenderTest.TWO_NODES);
        assertThat(rendered.all(Secret.class)).extracting(s -> s.getMetadata().getName())
                .containsExactlyInAnyOrder(PREFIX + "controller-tls", PREFIX + "agent-storage-1-tls",
                        PREFIX + "agent-storage-2.rack-b-tls");
        Secret controller = controller(rendered);
        for (Secret secret : List.of(controller, agent(rendered, "storage-1"), agent(rendered, "storage-2.rack-b"))) {
            assertThat(secret.getType()).isEqualTo("kubernetes.io/tls");
            assertThat(secret.getData()).containsOnlyKeys("tls.crt", "tls.key", "ca.crt");
            assertThat(pem(secret, "tls.key")).startsWith("-----BEGIN PRIVATE KEY-----\n");
            assertThat(pem(secret, "ca.crt")).isEqualTo(pem(controller, "ca.crt"));
        }
        assertThat(rendered.manifests()).doesNotContain("cert-manager.io");
        TlsModesTest.assertMounted(rendered, PREFIX + "controller-tls", "pillar-controller", true);
        // each node's agent mounts its own node's Secret, into the directory its agent reads
        for (String node : TlsModesTest.NODES) {
            TlsModesTest.assertOwnSecretMounted(rendered, node, PREFIX + "agent-" + node + "-tls");
        }
    }

    @Test
    @SuppressWarnings("unchecked")
    void eachAgentHasACertificateOfItsOwnNameAndKeyChainedToTheCa() throws Exception {
        Map<String, Object> agent = new HashMap<>((Map<String, Object>) AgentRenderTest.TWO_NODES.get("agent"));
        Map<String, Object> nodes = new HashMap<>((Map<String, Object>) agent.get("nodes"));
        Map<String, Object> storage1 = new HashMap<>((Map<String, Object>) nodes.get("storage-1"));
        storage1.put("address", "10.0.0.11");
        nodes.put("storage-1", storage1);
        agent.put("nodes", nodes);
        Rendered rendered = HelmChart.render(Map.of("agent", agent, "tls", Map.of("agentServerName", "agents.storage.lan",
                "controllerName", "csi-controller.prod", "externalAgents", List.of("nas-1"))));
        X509Certificate ca = certificate(pem(controller(rendered), "ca.crt"));
        X509Certificate storage1Cert = certificate(pem(agent(rendered, "storage-1"), "tls.crt"));
        X509Certificate storage2Cert = certificate(pem(agent(rendered, "storage-2.rack-b"), "tls.crt"));
        X509Certificate externalCert = certificate(pem(agent(rendered, "nas-1"), "tls.crt"));
        X509Certificate controllerCert = certificate(pem(controller(rendered), "tls.crt"));

        assertThat(ca.getBasicConstraints()).isGreaterThanOrEqualTo(0);
        ca.verify(ca.getPublicKey());
        for (X509Certificate cert : List.of(storage1Cert, storage2Cert, externalCert, controllerCert)) {
            cert.verify(ca.getPublicKey());
            assertThat(cert.getBasicConstraints()).isEqualTo(-1);
            assertThat(cert.getPublicKey().getAlgorithm()).isEqualTo("EC");
        }
        assertThat(storage1Cert.getSubjectAlternativeNames())
                .containsExactlyInAnyOrder(List.of(DNS, "storage-1.agents.storage.lan"), List.of(IP, "10.0.0.11"));
        assertThat(storage2Cert.getSubjectAlternativeNames()).containsExactly(List.of(DNS, "storage-2.rack-b.agents.storage.lan"));
        assertThat(externalCert.getSubjectAlternativeNames()).containsExactly(List.of(DNS, "nas-1.agents.storage.lan"));
        assertThat(controllerCert.getSubjectAlternativeNames()).containsExactly(List.of(DNS, "csi-controller.prod"));
        assertThat(List.of(storage1Cert.getPublicKey(), storage2Cert.getPublicKey(), externalCert.getPublicKey(),
                controllerCert.getPublicKey())).as("one key each").doesNotHaveDuplicates();
        // sprig's genSignedCert gives every certificate both usages (it offers no other); the names keep
        // the roles apart: no agent's is the controller's (the chart and the agent refuse that)
        assertThat(storage1Cert.getExtendedKeyUsage()).contains(SERVER_AUTH);
        assertThat(controllerCert.getExtendedKeyUsage()).contains(CLIENT_AUTH);
        assertThat(controllerCert.getNotAfter()).isAfter(java.util.Date.from(java.time.Instant.now().plus(java.time.Duration.ofDays(1000))));
    }

    /**
     * The agent's side read by Helidon exactly as pillar-agent configures its server, the
     * controller's the way pillar.controller.agent.PemFiles reads it (PKCS#8, KeyFactory): one
     * handshake, the client verifying the agent's server name, the server requiring a client. A
     * node's certificate passes for its own name and not for another node's.
     */
    @Test
    void theRenderedKeysLoadInJavaAndCompleteAMutualHandshakeForTheirOwnNodeOnly() throws Exception {
        Rendered rendered = HelmChart.render(AgentRenderTest.TWO_NODES);
        Path agentDir = write(agent(rendered, "storage-1"), "storage-1");
        Path controllerDir = write(controller(rendered), "controller");

        assertThat(handshake(agentDir, controllerDir, "storage-1.pillar-agent").getSubjectAlternativeNames())
                .containsExactly(List.of(DNS, "pillar-controller"));
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> handshake(agentDir, controllerDir, "storage-2.rack-b.pillar-agent"))
                .isInstanceOf(javax.net.ssl.SSLHandshakeException.class)
                .hasMessageContaining("storage-2.rack-b.pillar-agent");
    }

    /** One handshake of the controller's files, verifying {@code serverName}, with an agent of these files; the client it saw. */
    private static X509Certificate handshake(Path agentDir, Path controllerDir, String serverName) throws Exception {
        Tls agentTls = Tls.builder()
                .privateKey(keys -> keys.pem(pem -> pem.key(Resource.create(agentDir.resolve("tls.key")))))
                .privateKeyCertChain(keys -> keys.pem(pem -> pem.certChain(Resource.create(agentDir.resolve("tls.crt")))))
                .trust(keys -> keys.pem(pem -> pem.certificates(Resource.create(agentDir.resolve("ca.crt")))))
                .clientAuth(TlsClientAuth.REQUIRED)
                .build();
        SSLContext controllerContext = controllerContext(controllerDir);

        try (SSLServerSocket server = (SSLServerSocket) agentTls.sslContext().getServerSocketFactory()
                .createServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            // Helidon's parameters ask for HTTPS endpoint identification, a client-side check: the server requires a client
            server.setNeedClientAuth(true);
            CompletableFuture<X509Certificate> client = CompletableFuture.supplyAsync(() -> {
                try (SSLSocket accepted = (SSLSocket) server.accept()) {
                    accepted.startHandshake();
                    accepted.getOutputStream().write(1);
                    return (X509Certificate) accepted.getSession().getPeerCertificates()[0];
                } catch (IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            });
            Socket plain = new Socket();
            plain.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), server.getLocalPort()), 5000);
            try (SSLSocket socket = (SSLSocket) controllerContext.getSocketFactory()
                    .createSocket(plain, serverName, server.getLocalPort(), true)) {
                SSLParameters parameters = socket.getSSLParameters();
                parameters.setEndpointIdentificationAlgorithm("HTTPS");
                socket.setSSLParameters(parameters);
                socket.setSoTimeout(5000);
                socket.startHandshake();
                int read;
                try {
                    read = socket.getInputStream().read();
                } catch (IOException e) {
                    // the agent's side refused: its reason is the one to report
                    client.handle((cert, serverError) -> {
                        if (serverError != null) {
                            e.addSuppressed(serverError);
                        }
                        return cert;
                    }).get(10, TimeUnit.SECONDS);
                    throw e;
                }
                assertThat(read).isEqualTo(1);
                assertThat(((X509Certificate) socket.getSession().getPeerCertificates()[0]).getSubjectAlternativeNames())
                        .containsExactly(List.of(DNS, serverName));
            }
            return client.get(10, TimeUnit.SECONDS);
        }
    }

    private static SSLContext controllerContext(Path files) throws Exception {
        String pem = Files.readString(files.resolve("tls.key"), StandardCharsets.US_ASCII);
        String body = pem.replace("-----BEGIN PRIVATE KEY-----", "").replace("-----END PRIVATE KEY-----", "");
        PrivateKey key = KeyFactory.getInstance("EC").generatePrivate(new PKCS8EncodedKeySpec(Base64.getMimeDecoder().decode(body)));
        KeyStore identity = KeyStore.getInstance("PKCS12");
        identity.load(null, null);
        identity.setKeyEntry("controller", key, new char[0], certificates(files.resolve("tls.crt")).toArray(Certificate[]::new));
        KeyManagerFactory keys = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        keys.init(identity, new char[0]);
        KeyStore trust = KeyStore.getInstance("PKCS12");
        trust.load(null, null);
        trust.setCertificateEntry("ca", certificates(files.resolve("ca.crt")).getFirst());
        TrustManagerFactory trusted = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        trusted.init(trust);
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(keys.getKeyManagers(), trusted.getTrustManagers(), null);
        return context;
    }

    /** The files of {@code secret} (tls.crt, tls.key and ca.crt) in a directory {@code name}. */
    private Path write(Secret secret, String name) throws IOException {
        Path files = Files.createDirectories(dir.resolve(name));
        for (String key : List.of("tls.crt", "tls.key", "ca.crt")) {
            Files.writeString(files.resolve(key), pem(secret, key), StandardCharsets.US_ASCII);
        }
        return files;
    }

    private static List<? extends Certificate> certificates(Path file) throws Exception {
        try (InputStream in = Files.newInputStream(file)) {
            return List.copyOf(CertificateFactory.getInstance("X.509").generateCertificates(in));
        }
    }

    static X509Certificate certificate(String pem) throws Exception {
        return (X509Certificate) CertificateFactory.getInstance("X.509")
                .generateCertificate(new ByteArrayInputStream(pem.getBytes(StandardCharsets.US_ASCII)));
    }

    static String pem(Secret secret, String key) {
        return new String(Base64.getDecoder().decode(secret.getData().get(key)), StandardCharsets.US_ASCII);
    }

    static Secret controller(Rendered rendered) {
        return rendered.get(Secret.class, PREFIX + "controller-tls");
    }

    /** One agent's Secret: its certificate, key and the CA. */
    static Secret agent(Rendered rendered, String agent) {
        return rendered.get(Secret.class, PREFIX + "agent-" + agent + "-tls");
    }
}
