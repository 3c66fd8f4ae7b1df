package pillar.controller.crd;

import java.util.Locale;

import com.fasterxml.jackson.annotation.JsonPropertyDescription;

/** A pool's capacity in bytes, with a rounded binary form for {@code kubectl get}. */
public class StoreCapacity {
    private static final String[] UNITS = {"Ki", "Mi", "Gi", "Ti", "Pi", "Ei"};

    @JsonPropertyDescription("Total bytes of the pool.")
    private Long totalBytes;
    @JsonPropertyDescription("Bytes available for new volumes.")
    private Long availableBytes;
    @JsonPropertyDescription("totalBytes, rounded, e.g. 1.82Ti.")
    private String total;
    @JsonPropertyDescription("availableBytes, rounded, e.g. 931Gi.")
    private String available;

    public StoreCapacity() {
    }

    public static StoreCapacity of(long totalBytes, long availableBytes) {
        StoreCapacity capacity = new StoreCapacity();
        capacity.totalBytes = totalBytes;
        capacity.availableBytes = availableBytes;
        capacity.total = display(totalBytes);
        capacity.available = display(availableBytes);
        return capacity;
    }

    /** Three significant digits in the largest binary unit that keeps the number at least 1. */
    static String display(long bytes) {
        if (bytes < 1024) {
            return bytes + "B";
        }
        double value = bytes;
        int unit = -1;
        while (value >= 1024 && unit < UNITS.length - 1) {
            value /= 1024;
            unit++;
        }
        String digits = value >= 100 ? String.format(Locale.ROOT, "%.0f", value)
                : value >= 10 ? String.format(Locale.ROOT, "%.1f", value) : String.format(Locale.ROOT, "%.2f", value);
        if (digits.contains(".")) {
            digits = digits.replaceAll("0+$", "").replaceAll("\\.$", "");
        }
        return digits + UNITS[unit];
    }

    public Long getTotalBytes() {
        return totalBytes;
    }

    public void setTotalBytes(Long totalBytes) {
        this.totalBytes = totalBytes;
    }

    public Long getAvailableBytes() {
        return availableBytes;
    }

    public void setAvailableBytes(Long availableBytes) {
        this.availableBytes = availableBytes;
    }

    public String getTotal() {
        return total;
    }

    public void setTotal(String total) {
        this.total = total;
    }

    public String getAvailable() {
        return available;
    }

    public void setAvailable(String available) {
        this.available = available;
    }
}
