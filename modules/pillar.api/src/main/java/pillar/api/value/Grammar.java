package pillar.api.value;

import java.nio.charset.StandardCharsets;

/** Shared checks for the identifier grammars: ASCII only, bounded length, an explicit alphabet. */
final class Grammar {
    private Grammar() {
    }

    /** Non-null and non-empty, at most {@code max} bytes, every character in {@code alphabet}. */
    static String check(String field, String value, int min, int max, String alphabetName, CharPredicate alphabet) {
        if (value == null || value.isEmpty()) {
            throw new InvalidValueException(field, "must not be empty");
        }
        int bytes = value.getBytes(StandardCharsets.UTF_8).length;
        if (bytes < min || bytes > max) {
            throw new InvalidValueException(field, "must be " + min + " to " + max + " bytes long, is " + bytes);
        }
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (!alphabet.test(c)) {
                throw new InvalidValueException(field, "character " + describe(c) + " at position " + i
                        + " is not allowed (" + alphabetName + ")");
            }
        }
        return value;
    }

    static boolean lowerAlnum(char c) {
        return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
    }

    static boolean alnum(char c) {
        return lowerAlnum(c) || (c >= 'A' && c <= 'Z');
    }

    /** Printable form of a character for error messages: never echoes control or non-ASCII bytes raw. */
    static String describe(char c) {
        if (c >= 0x21 && c < 0x7f) {
            return "'" + c + "'";
        }
        return String.format("U+%04X", (int) c);
    }

    @FunctionalInterface
    interface CharPredicate {
        boolean test(char c);
    }
}
