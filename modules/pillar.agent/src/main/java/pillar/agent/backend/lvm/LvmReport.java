package pillar.agent.backend.lvm;

import java.math.BigDecimal;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;

import io.helidon.json.JsonArray;
import io.helidon.json.JsonObject;
import io.helidon.json.JsonParser;
import io.helidon.json.JsonValue;
import pillar.agent.backend.BackendException;
import pillar.agent.backend.Texts;

/**
 * Parses the JSON reports of {@code lvs} and {@code vgs} run with {@code --reportformat json --units b
 * --nosuffix}: {@code {"report": [{"lv": [{"lv_name": "pvc-1", "lv_size": "67108864", ...}]}]}}. LVM
 * prints every value as a string in this format; numbers (the {@code json_std} format) and tag
 * arrays are accepted too. A report that does not parse, or lacks a field asked for, is a
 * {@link BackendException.Kind#FAILED}: never guessed around.
 */
final class LvmReport {
    /** Fields of {@link Lv}, in the order {@code -o} asks for them. */
    static final String LV_FIELDS = "lv_name,lv_path,lv_size,lv_tags,pool_lv,lv_attr,vg_extent_size";
    /** Fields of {@link Stamped}: those of {@link Lv} and {@code lv_time}. */
    static final String STAMPED_FIELDS = LV_FIELDS + ",lv_time";
    /** How lvs prints {@code lv_time} (report/time_format's default {@code %Y-%m-%d %T %z}). */
    private static final DateTimeFormatter LV_TIME = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss Z", Locale.ROOT);
    /** Fields of {@link Vg}. */
    static final String VG_FIELDS = "vg_name,vg_size,vg_free,vg_extent_size";
    /** Fields of {@link ThinPool}. */
    static final String POOL_FIELDS = "lv_name,lv_size,data_percent,lv_attr,zero";
    /** Fields of {@link #thinLayout}: what {@link ThinPool} needs, and each LV's thin pool. */
    static final String LAYOUT_FIELDS = "lv_name,lv_size,pool_lv,data_percent,lv_attr,zero";
    /** Fields of {@link #thinUsage}. */
    static final String USAGE_FIELDS = "lv_name,lv_attr,data_percent,metadata_percent";

    private LvmReport() {
    }

    /**
     * One logical volume.
     *
     * @param path       the device path LVM maintains ({@code /dev/<vg>/<lv>}); empty for a thin pool
     * @param pool       the thin pool of a thin LV, empty for any other LV
     * @param attr       {@code lv_attr}, e.g. {@code -wi-ao----}: character 1 the volume type ({@link LvTypes}), 5 'a' when
     *                   active, 6 'o' when its device is open
     * @param extentSize the volume group's extent size: LV sizes are multiples of it
     */
    record Lv(String name, String path, long size, List<String> tags, String pool, String attr, long extentSize) {
        boolean active() {
            return attr.length() > 4 && attr.charAt(4) == 'a';
        }

        /**
         * Whether its device is open now, by anyone: device-mapper's open count, so a mount, a process, a device
         * stacked on it and the kernel's nvmet namespace all count ({@code lv_attr} character 6, {@code lv_device_open}).
         */
        boolean open() {
            return attr.length() > 5 && attr.charAt(5) == 'o';
        }

        /** {@code lv_attr}'s volume type: '-' a plain (linear or striped) LV, 'V' a thin one, 't' a thin pool, ... */
        char type() {
            return attr.isEmpty() ? '?' : attr.charAt(0);
        }
    }

    /** A logical volume and when LVM created it ({@code lv_time}, whole seconds). */
    record Stamped(Lv lv, Instant created) {
    }

    /** One volume group: size and free bytes, and the extent size every LV size is a multiple of. */
    record Vg(String name, long size, long free, long extentSize) {
    }

    /**
     * A thin pool: its data size, how much of it is used in percent, and whether it zeroes new chunks
     * (the {@code zero} field: the word {@code zero} when on, empty when off; 1 and 0 with {@code --binary}).
     */
    record ThinPool(String name, long size, BigDecimal dataPercent, String attr, boolean zeroing) {
        /** Bytes of the pool's data area that no thin LV uses yet. */
        long free() {
            BigDecimal used = BigDecimal.valueOf(size).multiply(dataPercent).divide(BigDecimal.valueOf(100));
            long free = size - used.setScale(0, java.math.RoundingMode.CEILING).longValueExact();
            return Math.max(0, free);
        }
    }

    static List<Lv> lvs(String json) {
        return rows(json, "lv").stream().map(LvmReport::lv).toList();
    }

    private static Lv lv(JsonObject row) {
        return new Lv(text(row, "lv_name"), text(row, "lv_path"), number(row, "lv_size"), tags(text(row, "lv_tags")),
                text(row, "pool_lv"), text(row, "lv_attr"), number(row, "vg_extent_size"));
    }

    private static Instant time(JsonObject row, String field) {
        String text = text(row, field);
        try {
            return OffsetDateTime.parse(text, LV_TIME).toInstant();
        } catch (DateTimeParseException e) {
            throw malformed("lvm's report has '" + Texts.oneLine(text) + "' in the time field " + field);
        }
    }

    static List<Stamped> stamped(String json) {
        return rows(json, "lv").stream().map(row -> new Stamped(lv(row), time(row, "lv_time"))).toList();
    }

    static List<Vg> vgs(String json) {
        return rows(json, "vg").stream()
                .map(row -> new Vg(text(row, "vg_name"), number(row, "vg_size"), number(row, "vg_free"), number(row, "vg_extent_size")))
                .toList();
    }

    static List<ThinPool> thinPools(String json) {
        return rows(json, "lv").stream().map(LvmReport::thinPool).toList();
    }

    private static ThinPool thinPool(JsonObject row) {
        return new ThinPool(text(row, "lv_name"), number(row, "lv_size"), percent(row, "data_percent"), text(row, "lv_attr"),
                flag(row, "zero"));
    }

    /** An LV's name, size ({@code lv_size}: a thin LV's virtual size) and thin pool (empty when not thin). */
    record Sized(String name, long size, String pool) {
    }

    /**
     * A volume group's thin pool and every LV of the group, from one {@code lvs} of it.
     *
     * @param pool the pool's row, empty when the group has no LV of that name
     */
    record ThinLayout(java.util.Optional<ThinPool> pool, List<Sized> lvs) {
    }

    /** The layout around the thin pool {@code pool}: only its row is read as a pool (others report no zero setting). */
    static ThinLayout thinLayout(String json, String pool) {
        List<JsonObject> rows = rows(json, "lv");
        List<Sized> lvs = rows.stream().map(row -> new Sized(text(row, "lv_name"), number(row, "lv_size"), text(row, "pool_lv")))
                .toList();
        java.util.Optional<ThinPool> found = rows.stream().filter(row -> text(row, "lv_name").equals(pool)).findFirst()
                .map(LvmReport::thinPool);
        return new ThinLayout(found, lvs);
    }

    /** A thin pool's usage: data and metadata in percent (an inactive pool reports none: 0). */
    record Usage(String name, String attr, BigDecimal dataPercent, BigDecimal metadataPercent) {
    }

    static List<Usage> thinUsage(String json) {
        return rows(json, "lv").stream()
                .map(row -> new Usage(text(row, "lv_name"), text(row, "lv_attr"), percent(row, "data_percent"),
                        percent(row, "metadata_percent")))
                .toList();
    }

    /** A binary field: its name (or 1) when set, empty (or 0) when not. */
    private static boolean flag(JsonObject row, String field) {
        String text = text(row, field);
        if (text.equals(field) || text.equals("1")) {
            return true;
        }
        if (text.isEmpty() || text.equals("0")) {
            return false;
        }
        throw malformed("lvm's report has '" + Texts.oneLine(text) + "' in the binary field " + field);
    }

    private static List<JsonObject> rows(String json, String section) {
        // LVM may print warnings before the report on stdout; the report is the first JSON object
        int start = json.indexOf('{');
        if (start < 0) {
            throw malformed("no JSON report in lvm's output: " + Texts.oneLine(json));
        }
        JsonObject root;
        try {
            root = JsonParser.create(json.substring(start)).readJsonObject();
        } catch (RuntimeException e) {
            throw new BackendException(BackendException.Kind.FAILED, "lvm printed a report that is not JSON: " + Texts.oneLine(json), e);
        }
        JsonArray reports = root.arrayValue("report").orElseThrow(() -> malformed("lvm's report has no \"report\" array"));
        List<JsonObject> rows = new ArrayList<>();
        for (JsonValue report : reports.values()) {
            object(report).arrayValue(section).ifPresent(array -> array.values().forEach(row -> rows.add(object(row))));
        }
        return rows;
    }

    private static JsonObject object(JsonValue value) {
        if (value.type() != io.helidon.json.JsonValueType.OBJECT) {
            throw malformed("lvm's report holds a " + value.type() + " where an object belongs");
        }
        return value.asObject();
    }

    /** A field as text: LVM's json format prints strings, json_std numbers and arrays. */
    private static String text(JsonObject row, String field) {
        JsonValue value = row.value(field).orElseThrow(() -> malformed("lvm's report lacks the field " + field));
        return switch (value.type()) {
            case STRING -> value.asString().value();
            case NUMBER -> value.asNumber().bigDecimalValue().toPlainString();
            case ARRAY -> value.asArray().values().stream().map(v -> v.asString().value()).collect(Collectors.joining(","));
            case NULL -> "";
            default -> throw malformed("lvm's report has a " + value.type() + " in the field " + field);
        };
    }

    private static long number(JsonObject row, String field) {
        String text = text(row, field);
        try {
            return Long.parseLong(text);
        } catch (NumberFormatException e) {
            throw malformed("lvm's report has '" + Texts.oneLine(text) + "' in the numeric field " + field
                    + " (run with --units b --nosuffix?)");
        }
    }

    private static BigDecimal percent(JsonObject row, String field) {
        String text = text(row, field);
        if (text.isEmpty()) {
            return BigDecimal.ZERO; // an inactive pool reports no usage
        }
        try {
            BigDecimal percent = new BigDecimal(text);
            if (percent.signum() < 0 || percent.compareTo(BigDecimal.valueOf(100)) > 0) {
                throw malformed("lvm's report has " + text + " in the percentage " + field);
            }
            return percent;
        } catch (NumberFormatException e) {
            throw malformed("lvm's report has '" + Texts.oneLine(text) + "' in the percentage " + field);
        }
    }

    private static List<String> tags(String tags) {
        return tags.isEmpty() ? List.of() : Arrays.stream(tags.split(",")).map(String::strip).toList();
    }

    private static BackendException malformed(String message) {
        return new BackendException(BackendException.Kind.FAILED, message);
    }
}
