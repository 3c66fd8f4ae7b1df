package pillar.runtime.server;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Instant;
import java.util.logging.Formatter;
import java.util.logging.LogRecord;

import io.helidon.logging.common.HelidonMdc;

/**
 * One JSON object per log line ({@code log.format=json}): {@code time} (UTC, ISO-8601), {@code level},
 * {@code logger}, {@code message}, {@code volume} when the line is about a volume (the ID
 * {@link VolumeLogContext} put in the context) and {@code error} with the stack trace when there is
 * one. Every string is escaped as RFC 8259 requires, so a hostile message cannot forge a field.
 */
public final class JsonLogFormatter extends Formatter {
    @Override
    public String format(LogRecord record) {
        StringBuilder line = new StringBuilder(256).append('{');
        field(line, "time", Instant.ofEpochMilli(record.getMillis()).toString());
        field(line.append(','), "level", record.getLevel().getName());
        field(line.append(','), "logger", String.valueOf(record.getLoggerName()));
        field(line.append(','), "message", formatMessage(record));
        HelidonMdc.get(VolumeLogContext.ID_KEY).ifPresent(volume -> field(line.append(','), "volume", volume));
        if (record.getThrown() != null) {
            StringWriter trace = new StringWriter();
            record.getThrown().printStackTrace(new PrintWriter(trace));
            field(line.append(','), "error", trace.toString());
        }
        return line.append("}\n").toString();
    }

    private static void field(StringBuilder line, String name, String value) {
        quoted(line, name);
        line.append(':');
        quoted(line, value);
    }

    private static void quoted(StringBuilder line, String text) {
        line.append('"');
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            switch (c) {
                case '"' -> line.append("\\\"");
                case '\\' -> line.append("\\\\");
                case '\n' -> line.append("\\n");
                case '\r' -> line.append("\\r");
                case '\t' -> line.append("\\t");
                default -> {
                    if (c < 0x20) {
                        line.append(String.format("\\u%04x", (int) c));
                    } else {
                        line.append(c);
                    }
                }
            }
        }
        line.append('"');
    }
}
