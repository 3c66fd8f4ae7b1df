package pillar.agent.service;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import javax.net.ssl.KeyManager;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManager;

import io.grpc.ChannelCredentials;
import io.grpc.TlsChannelCredentials;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import pillar.agent.AgentMain;
import pillar.agent.config.AgentConfig;
import pillar.agent.configfs.FakeConfigfsTree;
import pillar.runtime.server.CertificateFiles;
import pillar.runtime.server.WorkloadServer;
import pillar.testkit.TestPki;

/**
 * The agent's and the controller's certificates are renewed in their Secret volumes (the kubelet's
 * atomic {@code ..data} flip) while four clients call the agent in a loop, each call on a new
 * connection, so a new handshake: no call fails, and the next handshake presents the new
 * certificate. The CA is rotated in steps (bundle old and new CA, then new leaves, then drop the
 * old CA); unusable files (a key of another certificate) keep the working credentials.
 */
class AgentTlsRotationIT {
    private static final int CLIENTS = 4;
    /** Calls (handshakes) after each step before the next. */
    private static final int PER_STEP = 8;

    @TempDir
    Path dir;

    private final Queue<String> failures = new ConcurrentLinkedQueue<>();
    private final AtomicInteger calls = new AtomicInteger();

    @Test
    void certificatesRotateUnderLoadWithNoFailedCall() throws Exception {
        Instant tomorrow = Instant.now().plus(Duration.ofDays(1));
        TestPki oldCa = new TestPki(dir, "old");
        TestPki newCa = new TestPki(dir, "new");
        SecretVolume agentSecret = new SecretVolume(dir.resolve("agent-tls"));
        SecretVolume controllerSecret = new SecretVolume(dir.resolve("controller-tls"));
        TestPki.Issued agent1 = oldCa.issue("agent1", tomorrow, "localhost");
        TestPki.Issued controller1 = oldCa.issue("controller1", tomorrow, AgentTlsIT.CONTROLLER);
        agentSecret.publish(agent1.cert(), agent1.key(), oldCa.caFile());
        controllerSecret.publish(controller1.cert(), controller1.key(), oldCa.caFile());
        CertificateFiles controller = new CertificateFiles(controllerSecret.cert(), controllerSecret.key(),
                controllerSecret.ca(), "agents.tls");
        AgentConfig config = AgentTlsIT.config(dir, Optional.of(new AgentConfig.TlsFiles(agentSecret.cert(), agentSecret.key(),
                agentSecret.ca(), List.of(AgentTlsIT.CONTROLLER))));

        try (WorkloadServer agent = AgentMain.start(config, Map.of("fast", new CountingBackend("fast")),
                FakeConfigfsTree.create().target())) {
            int port = agent.grpcPort();
            AtomicBoolean running = new AtomicBoolean(true);
            List<Thread> clients = java.util.stream.IntStream.range(0, CLIENTS)
                    .mapToObj(i -> Thread.ofPlatform().name("client-" + i).start(() -> loop(port, controller, running)))
                    .toList();
            try {
                awaitCalls(PER_STEP);
                assertThat(serverCertificate(port, controller).getSerialNumber()).isEqualTo(agent1.serial());

                TestPki.Issued agent2 = oldCa.issue("agent2", tomorrow, "localhost");
                agentSecret.publish(agent2.cert(), agent2.key(), oldCa.caFile());
                awaitCalls(PER_STEP);
                assertThat(serverCertificate(port, controller).getSerialNumber()).isEqualTo(agent2.serial());

                TestPki.Issued controller2 = oldCa.issue("controller2", tomorrow, AgentTlsIT.CONTROLLER);
                controllerSecret.publish(controller2.cert(), controller2.key(), oldCa.caFile());
                awaitCalls(PER_STEP);
                assertThat(controller.current().keyManager().getCertificateChain(
                        controller.current().keyManager().getClientAliases("EC", null)[0])[0].getSerialNumber())
                        .isEqualTo(controller2.serial());

                // a rotation to a key of another certificate: the agent keeps presenting agent2
                TestPki.Issued stray = oldCa.issue("stray", tomorrow, "localhost");
                agentSecret.publish(Map.of(SecretVolume.CERT, oldCa.issue("agent3", tomorrow, "localhost").cert(),
                        SecretVolume.KEY, stray.key(), SecretVolume.CA, oldCa.caFile()));
                awaitCalls(PER_STEP);
                assertThat(serverCertificate(port, controller).getSerialNumber()).isEqualTo(agent2.serial());

                // CA rotation, step 1: both sides trust the old and the new CA
                Path bothCas = TestPki.bundle(dir.resolve("both-ca.crt"), oldCa, newCa);
                agentSecret.publish(agent2.cert(), agent2.key(), bothCas);
                controllerSecret.publish(controller2.cert(), controller2.key(), bothCas);
                awaitCalls(PER_STEP);
                // step 2: new leaves from the new CA, the agent's first
                TestPki.Issued agent4 = newCa.issue("agent4", tomorrow, "localhost");
                agentSecret.publish(agent4.cert(), agent4.key(), bothCas);
                awaitCalls(PER_STEP);
                TestPki.Issued controller4 = newCa.issue("controller4", tomorrow, AgentTlsIT.CONTROLLER);
                controllerSecret.publish(controller4.cert(), controller4.key(), bothCas);
                awaitCalls(PER_STEP);
                // step 3: the old CA is trusted no more
                agentSecret.publish(agent4.cert(), agent4.key(), newCa.caFile());
                controllerSecret.publish(controller4.cert(), controller4.key(), newCa.caFile());
                awaitCalls(PER_STEP);
                X509Certificate presented = serverCertificate(port, controller);
                assertThat(presented.getSerialNumber()).isEqualTo(agent4.serial());
                assertThat(presented.getIssuerX500Principal().getName()).isEqualTo("CN=new CA");
            } finally {
                running.set(false);
                for (Thread client : clients) {
                    client.join(60_000);
                }
            }
            assertThat(failures).as("failed calls of " + calls.get()).isEmpty();
            assertThat(calls.get()).isGreaterThanOrEqualTo(8 * PER_STEP);

            // a controller still holding a certificate of the old CA is refused now
            TestPki.Issued oldController = oldCa.issue("controller-old", tomorrow, AgentTlsIT.CONTROLLER);
            AgentTlsIT.assertRefused(() -> AgentTlsIT.call(port, AgentTlsIT.client(oldController, newCa.caFile())));
        }
    }

    /** Calls the agent on a new connection per call until told to stop; records every failure. */
    private void loop(int port, CertificateFiles controller, AtomicBoolean running) {
        while (running.get()) {
            try {
                CertificateFiles.Loaded loaded = controller.current();
                ChannelCredentials credentials = TlsChannelCredentials.newBuilder().keyManager(loaded.keyManager())
                        .trustManager(loaded.trustManager()).build();
                AgentTlsIT.call(port, credentials);
                calls.incrementAndGet();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            } catch (RuntimeException e) {
                failures.add(e.toString());
            }
        }
    }

    private void awaitCalls(int more) throws InterruptedException {
        int target = calls.get() + more;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        while (calls.get() < target && failures.isEmpty() && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        assertThat(failures).as("failed calls").isEmpty();
        assertThat(calls.get()).as("calls within 120 s").isGreaterThanOrEqualTo(target);
    }

    /** The certificate the agent presents in a new handshake. */
    private static X509Certificate serverCertificate(int port, CertificateFiles controller) throws Exception {
        CertificateFiles.Loaded loaded = controller.current();
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(new KeyManager[] {loaded.keyManager()}, new TrustManager[] {loaded.trustManager()}, null);
        try (SSLSocket socket = (SSLSocket) context.getSocketFactory().createSocket("127.0.0.1", port)) {
            socket.setSoTimeout(20_000);
            socket.startHandshake();
            return (X509Certificate) socket.getSession().getPeerCertificates()[0];
        }
    }
}
