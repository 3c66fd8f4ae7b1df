package pillar.launch;

import java.io.IOException;
import java.net.HttpURLConnection;
import java.net.URI;

/** A workload's Helidon readiness endpoint, {@code http://127.0.0.1:PORT/observe/health/ready}, asked once. */
public final class HealthProbe {
    private HealthProbe() {
    }

    /** The readiness URI of a workload whose health server listens on {@code port} of the loopback. */
    public static URI ready(int port) {
        return URI.create("http://127.0.0.1:" + port + "/observe/health/ready");
    }

    /** Whether it answers 200 now (a refused or timed-out connection is not ready). */
    public static boolean isReady(int port) {
        return status(ready(port)) == 200;
    }

    /** The HTTP status {@code uri} answers with, or -1 when it does not answer (2 s to connect, 10 s to answer). */
    public static int status(URI uri) {
        try {
            HttpURLConnection connection = (HttpURLConnection) uri.toURL().openConnection();
            // generous: under emulation a busy JVM is slow to accept and to answer
            connection.setConnectTimeout(2000);
            connection.setReadTimeout(10_000);
            try {
                return connection.getResponseCode();
            } finally {
                connection.disconnect();
            }
        } catch (IOException e) {
            return -1;
        }
    }
}
