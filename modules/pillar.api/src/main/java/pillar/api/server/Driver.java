package pillar.api.server;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Properties;

/** The driver's identity as the CO sees it. */
public final class Driver {
    /** The CSI driver name: the CSIDriver object, the StorageClass provisioner, GetPluginInfo. */
    public static final String NAME = "pillar.csi.io";

    private static final String VERSION = readVersion();

    private Driver() {
    }

    /** The build's version, e.g. {@code 0.1.0-SNAPSHOT}. */
    public static String version() {
        return VERSION;
    }

    private static String readVersion() {
        try (InputStream in = Driver.class.getResourceAsStream("version.properties")) {
            if (in == null) {
                throw new IllegalStateException("pillar/api/server/version.properties is missing from the build");
            }
            Properties properties = new Properties();
            properties.load(in);
            return properties.getProperty("version");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
