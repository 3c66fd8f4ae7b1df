package pillar.controller.csi;

import java.util.Optional;

import pillar.api.value.InvalidValueException;
import pillar.api.value.VolumeId;
import pillar.runtime.server.CsiException;

/**
 * ListVolumes' and ListSnapshots' page tokens. A token is a position in the order of IDs (byte order of the
 * ID), not a reference to a volume: {@code after:<volume-id>}, the last ID of the page it ended.
 * The next page lists the volumes whose IDs sort after it, as they are when that page is read.
 *
 * <p>Contract: a well-formed token is valid forever, on every replica and across restarts (the
 * controller keeps nothing about it), including when the volume it names has been deleted.
 * Following tokens from the first page, a volume never appears twice, a volume that exists from
 * the first page to the last appears exactly once, a volume created meanwhile appears only if its
 * ID sorts after the page being read, and a volume whose deletion has been seen never appears.
 * Anything else ({@code invalid-token}, another format, an ID out of grammar) is ABORTED: the CO
 * starts the listing again.
 */
final class ListTokens {
    private static final String PREFIX = "after:";

    private ListTokens() {
    }

    /** The token of a page whose last volume is {@code last}. */
    static String after(String last) {
        return PREFIX + last;
    }

    /**
     * The volume ID the token's page starts after; empty for no token (the first page).
     *
     * @throws CsiException ABORTED for a token this controller never hands out
     */
    static Optional<String> position(String token) {
        if (token.isEmpty()) {
            return Optional.empty();
        }
        if (!token.startsWith(PREFIX)) {
            throw CsiException.aborted("starting_token is not a token this controller handed out; list again from the start");
        }
        try {
            return Optional.of(VolumeId.of(token.substring(PREFIX.length())).value());
        } catch (InvalidValueException e) {
            throw CsiException.aborted("starting_token is not a token this controller handed out (" + e.getMessage()
                    + "); list again from the start");
        }
    }
}
