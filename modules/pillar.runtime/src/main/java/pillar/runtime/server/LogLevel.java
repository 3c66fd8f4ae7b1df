package pillar.runtime.server;

import java.util.Locale;
import java.util.logging.Level;
import java.util.logging.Logger;

import io.helidon.config.Config;

/**
 * The level of pillar-csi's own loggers ({@code pillar} and below), from the setting {@code log.level}:
 * {@code error}, {@code warning}, {@code info} (the default, as {@code logging.properties} says),
 * {@code debug} or {@code trace} (JUL's SEVERE, WARNING, INFO, FINE, FINEST). Any other value is
 * refused, so a typo never silently keeps the default. Other libraries keep their configured levels.
 */
public enum LogLevel {
    ERROR(Level.SEVERE), WARNING(Level.WARNING), INFO(Level.INFO), DEBUG(Level.FINE), TRACE(Level.FINEST);

    /** Held strongly: the LogManager keeps loggers weakly, and a collected one would lose its level. */
    private static final Logger PILLAR = Logger.getLogger("pillar");

    private final Level level;

    LogLevel(Level level) {
        this.level = level;
    }

    /** The configured level; IllegalArgumentException for an unknown one. */
    public static LogLevel from(Config root) {
        String value = root.get("log.level").asString().orElse("info");
        try {
            return valueOf(value.toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("log.level must be error, warning, info, debug or trace, is '" + value + "'");
        }
    }

    /** The JUL level this stands for. */
    public Level level() {
        return level;
    }

    /** Sets the {@code pillar} logger to this level (its handlers pass every level). */
    public void apply() {
        PILLAR.setLevel(level);
    }
}
