package pillar.controller.csi;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import pillar.api.value.VolumeName;

/** Volume IDs from CSI volume names (moved out of ParsingTest, whose other checks moved to pillar.controller.volume). */
class VolumeIdsTest {
    @Test
    void provisionerNamesAreKeptOtherNamesHashedAndNeverCollideWithThem() {
        assertThat(VolumeIds.of(VolumeName.of("pvc-0f9c2a6e-7c1b-4b8e-9a57-3e2d1c0b9a88")).value())
                .isEqualTo("pvc-0f9c2a6e-7c1b-4b8e-9a57-3e2d1c0b9a88");
        String hashed = VolumeIds.of(VolumeName.of("My_Volume.1")).value();
        assertThat(hashed).startsWith("pv-").hasSize(63).isEqualTo(VolumeIds.of(VolumeName.of("My_Volume.1")).value());
        // a name that looks like a hashed ID is hashed itself, so it cannot take another name's ID
        assertThat(VolumeIds.of(VolumeName.of(hashed)).value()).isNotEqualTo(hashed).startsWith("pv-");
        assertThat(VolumeIds.of(VolumeName.of("x".repeat(100))).value()).hasSize(63);
    }
}
