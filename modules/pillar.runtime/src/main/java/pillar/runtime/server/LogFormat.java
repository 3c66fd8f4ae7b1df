package pillar.runtime.server;

import java.util.Locale;
import java.util.logging.Handler;
import java.util.logging.LogManager;

import io.helidon.config.Config;

/**
 * How a workload's log lines are written, from the setting {@code log.format}: {@code text} (the
 * default: the format of {@code logging.properties}) or {@code json} ({@link JsonLogFormatter}, one
 * object a line, for log collectors). Any other value is refused, so a typo never silently keeps text.
 */
public enum LogFormat {
    TEXT, JSON;

    /** The configured format; IllegalArgumentException for an unknown one. */
    public static LogFormat from(Config root) {
        String value = root.get("log.format").asString().orElse("text");
        return switch (value.toLowerCase(Locale.ROOT)) {
            case "text" -> TEXT;
            case "json" -> JSON;
            default -> throw new IllegalArgumentException("log.format must be text or json, is '" + value + "'");
        };
    }

    /** Puts this format on every handler of the root logger (TEXT leaves them as configured). */
    public void apply() {
        if (this == JSON) {
            for (Handler handler : LogManager.getLogManager().getLogger("").getHandlers()) {
                handler.setFormatter(new JsonLogFormatter());
            }
        }
    }
}
