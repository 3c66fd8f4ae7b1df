package pillar.runtime.server;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Properties;

import pillar.api.csi.v1.PluginCapability;

/** The driver's identity as the CO sees it. */
public final class Driver {
    /** The CSI driver name: the CSIDriver object, the StorageClass provisioner, GetPluginInfo. */
    public static final String NAME = "pillar.csi.io";

    private static final String VERSION = readVersion();

    private static final List<PluginCapability> PLUGIN_CAPABILITIES = List.of(
            service(PluginCapability.Service.Type.CONTROLLER_SERVICE),
            service(PluginCapability.Service.Type.VOLUME_ACCESSIBILITY_CONSTRAINTS),
            PluginCapability.newBuilder().setVolumeExpansion(PluginCapability.VolumeExpansion.newBuilder()
                    .setType(PluginCapability.VolumeExpansion.Type.ONLINE)).build());

    private Driver() {
    }

    /** The build's version, e.g. {@code 0.1.0-SNAPSHOT}. */
    public static String version() {
        return VERSION;
    }

    /**
     * The plugin's capabilities, the same on every socket (the controller's and each node's): they
     * describe the plugin as a whole, so a client reading them from a node's socket still learns
     * that ControllerPublishVolume exists, that volumes have topology and grow while published.
     */
    public static List<PluginCapability> pluginCapabilities() {
        return PLUGIN_CAPABILITIES;
    }

    private static PluginCapability service(PluginCapability.Service.Type type) {
        return PluginCapability.newBuilder().setService(PluginCapability.Service.newBuilder().setType(type)).build();
    }

    private static String readVersion() {
        try (InputStream in = Driver.class.getResourceAsStream("version.properties")) {
            if (in == null) {
                throw new IllegalStateException("pillar/runtime/server/version.properties is missing from the build");
            }
            Properties properties = new Properties();
            properties.load(in);
            return properties.getProperty("version");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
