package pillar.launch;

import java.io.IOException;
import java.io.InputStream;
import java.net.HttpURLConnection;
import java.net.URI;
import java.nio.charset.StandardCharsets;

/** A workload's Prometheus metrics, {@code http://127.0.0.1:PORT/metrics} on its health port, read once. */
public final class MetricsScrape {
    private MetricsScrape() {
    }

    /** The metrics URI of a workload whose health server listens on {@code port} of the loopback. */
    public static URI uri(int port) {
        return URI.create("http://127.0.0.1:" + port + "/metrics");
    }

    /** The exposition text {@code uri} answers; IOException when it does not answer 200. */
    public static String text(URI uri) throws IOException {
        HttpURLConnection connection = (HttpURLConnection) uri.toURL().openConnection();
        connection.setConnectTimeout(2000);
        connection.setReadTimeout(10_000);
        try {
            if (connection.getResponseCode() != 200) {
                throw new IOException(uri + " answered " + connection.getResponseCode());
            }
            try (InputStream body = connection.getInputStream()) {
                return new String(body.readAllBytes(), StandardCharsets.UTF_8);
            }
        } finally {
            connection.disconnect();
        }
    }
}
