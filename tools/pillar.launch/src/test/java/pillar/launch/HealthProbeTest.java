package pillar.launch;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.concurrent.atomic.AtomicInteger;

import com.sun.net.httpserver.HttpServer;
import org.junit.jupiter.api.Test;

class HealthProbeTest {
    @Test
    void readyIsA200OnTheReadinessPathAndNothingElse() throws IOException {
        AtomicInteger answer = new AtomicInteger(503);
        HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/observe/health/ready", exchange -> {
            exchange.sendResponseHeaders(answer.get(), -1);
            exchange.close();
        });
        server.start();
        try {
            int port = server.getAddress().getPort();
            assertThat(HealthProbe.status(HealthProbe.ready(port))).isEqualTo(503);
            assertThat(HealthProbe.isReady(port)).isFalse();
            answer.set(200);
            assertThat(HealthProbe.isReady(port)).isTrue();
        } finally {
            server.stop(0);
        }
    }

    @Test
    void aPortNobodyListensOnIsNotReady() throws IOException {
        int port;
        try (ServerSocket socket = new ServerSocket(0)) {
            port = socket.getLocalPort();
        }
        assertThat(HealthProbe.status(HealthProbe.ready(port))).isEqualTo(-1);
        assertThat(HealthProbe.isReady(port)).isFalse();
    }
}
