package pillar.api.value;

import java.util.Locale;
import java.util.UUID;

/**
 * The lifecycle identity of a volume: the Kubernetes UID of its PillarVolumeState, a UUID in its
 * canonical lower-case form.
 */
public record LifecycleUid(String value) {
    public LifecycleUid {
        Grammar.check("lifecycle_uid", value, 36, 36, "a canonical UUID",
                c -> (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || c == '-');
        try {
            if (!UUID.fromString(value).toString().equals(value.toLowerCase(Locale.ROOT))) {
                throw new InvalidValueException("lifecycle_uid", "must be a canonical UUID");
            }
        } catch (IllegalArgumentException e) {
            throw new InvalidValueException("lifecycle_uid", "must be a canonical UUID");
        }
    }

    public static LifecycleUid of(String value) {
        return new LifecycleUid(value);
    }

    public static LifecycleUid random() {
        return new LifecycleUid(UUID.randomUUID().toString());
    }

    @Override
    public String toString() {
        return value;
    }
}
