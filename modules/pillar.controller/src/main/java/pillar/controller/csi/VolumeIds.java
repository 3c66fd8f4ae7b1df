package pillar.controller.csi;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Optional;

import pillar.api.value.InvalidValueException;
import pillar.api.value.VolumeId;
import pillar.api.value.VolumeName;
import pillar.controller.crd.Grammars;
import pillar.runtime.server.CsiException;

/**
 * The volume ID of a CreateVolume name, a pure function so that a retried CreateVolume finds its
 * state by a single read. external-provisioner's names ({@code pvc-<uid>}) are valid volume IDs
 * and are kept as they are, so an operator sees the PV's name on the storage node; any other name
 * becomes {@code pv-} and 60 hex digits of its SHA-256. The state records the name, so the rare ID
 * that two names could share is found and refused rather than mixed up. The other way, a call's
 * volume_id: missing is INVALID_ARGUMENT; a value that is no pillar-csi volume ID names no volume,
 * so it is NOT_FOUND where the volume must exist and nothing to do where a missing one is success.
 */
final class VolumeIds {
    static final String HASHED_PREFIX = "pv-";

    private VolumeIds() {
    }

    static VolumeId of(VolumeName name) {
        return VolumeId.of(idOf(name.value(), HASHED_PREFIX));
    }

    /**
     * A name as an ID of the label grammar: the name itself when it is a label and does not start
     * with {@code hashedPrefix}, else {@code hashedPrefix} and the hex of its SHA-256, to 63 characters.
     */
    static String idOf(String name, String hashedPrefix) {
        if (!name.startsWith(hashedPrefix)) {
            try {
                return VolumeId.of(name).value();
            } catch (InvalidValueException notALabel) {
                // upper case, '.', '_' or too long: hashed below
            }
        }
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(name.getBytes(StandardCharsets.UTF_8));
            return hashedPrefix + HexFormat.of().formatHex(digest).substring(0, VolumeId.MAX_LENGTH - hashedPrefix.length());
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("the JDK has no SHA-256", e);
        }
    }

    /** Fails with INVALID_ARGUMENT when a call's volume_id is missing. */
    static void require(String volumeId) {
        if (volumeId.isEmpty()) {
            throw CsiException.invalid("volume_id is required");
        }
    }

    /**
     * The volume_id of a call on a volume that must exist, checked after every required field:
     * INVALID_ARGUMENT when missing, NOT_FOUND when it cannot be a pillar-csi volume ID.
     */
    static VolumeId existing(String volumeId) {
        require(volumeId);
        try {
            return VolumeId.of(volumeId);
        } catch (InvalidValueException malformed) {
            throw CsiException.notFound("volume " + volumeId + " does not exist: " + malformed.getMessage());
        }
    }

    /**
     * The volume_id of a static PersistentVolume that asks to be adopted, checked after every required
     * field: its volumeHandle names the LV, zvol or dataset, so one that is no pillar-csi volume ID is
     * the operator's to fix (INVALID_ARGUMENT), by renaming the volume on the storage node first.
     */
    static VolumeId adopted(String volumeId) {
        require(volumeId);
        try {
            return VolumeId.of(volumeId);
        } catch (InvalidValueException malformed) {
            throw CsiException.invalid("volume_id " + Grammars.printable(volumeId) + " cannot be adopted: the volumeHandle of an"
                    + " adopted volume is its LV, zvol or dataset name and must be a pillar-csi volume ID (lower-case letters,"
                    + " digits and '-', at most 63): rename it on the storage node first (lvrename, zfs rename) ("
                    + malformed.getMessage() + ")");
        }
    }

    /**
     * The volume_id of a call that succeeds on a missing volume (DeleteVolume, ControllerUnpublishVolume):
     * INVALID_ARGUMENT when missing, empty when it cannot be a pillar-csi volume ID (nothing to do).
     */
    static Optional<VolumeId> ifAny(String volumeId) {
        require(volumeId);
        try {
            return Optional.of(VolumeId.of(volumeId));
        } catch (InvalidValueException malformed) {
            return Optional.empty();
        }
    }
}
