package pillar.runtime.server;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

import io.helidon.config.Config;
import io.helidon.config.ConfigSources;

/**
 * Loads a workload's configuration. Highest priority first: command-line overrides
 * ({@code --csi.socket=/csi/csi.sock}), environment variables (Helidon's mapping: {@code CSI_SOCKET}
 * is {@code csi.socket}), then the YAML file named by {@code --config FILE} (or {@code --config=FILE}:
 * both spellings name the file; neither is ever read as a setting called {@code config}).
 */
public final class WorkloadConfig {
    private WorkloadConfig() {
    }

    public static Config load(String... args) {
        Map<String, String> overrides = new LinkedHashMap<>();
        Path file = null;
        for (int i = 0; i < args.length; i++) {
            String arg = args[i];
            if (arg.equals("--config")) {
                if (i + 1 >= args.length) {
                    throw new IllegalArgumentException("--config needs a file name");
                }
                file = Path.of(args[++i]);
            } else if (arg.startsWith("--config=")) {
                file = Path.of(arg.substring("--config=".length()));
            } else if (arg.startsWith("--") && arg.indexOf('=') > 2) {
                overrides.put(arg.substring(2, arg.indexOf('=')), arg.substring(arg.indexOf('=') + 1));
            } else {
                throw new IllegalArgumentException("unknown argument '" + arg
                        + "': expected --config FILE or --key=value (e.g. --csi.socket=/csi/csi.sock)");
            }
        }
        Config.Builder builder = Config.builder()
                .disableSystemPropertiesSource()
                .disableEnvironmentVariablesSource()
                .addSource(ConfigSources.create(overrides))
                .addSource(ConfigSources.environmentVariables());
        if (file != null) {
            if (!Files.isRegularFile(file)) {
                throw new IllegalArgumentException("configuration file " + file + " does not exist");
            }
            builder.addSource(ConfigSources.file(file));
        }
        return builder.build();
    }
}
