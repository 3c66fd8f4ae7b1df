package pillar.controller.volume.read;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

import pillar.api.csi.v1.ListVolumesResponse;
import pillar.api.csi.v1.VolumeCondition;

/** A pass is counted from its first page to its last; one seen from its middle, or not yet ended, is not published. */
class AbnormalVolumesTest {
    private static ListVolumesResponse page(String next, boolean... abnormal) {
        ListVolumesResponse.Builder page = ListVolumesResponse.newBuilder().setNextToken(next);
        for (boolean a : abnormal) {
            page.addEntries(ListVolumesResponse.Entry.newBuilder().setStatus(ListVolumesResponse.VolumeStatus.newBuilder()
                    .setVolumeCondition(VolumeCondition.newBuilder().setAbnormal(a))));
        }
        return page.build();
    }

    @Test
    void aCompletePassPublishesItsCountAndTheNextReplacesIt() {
        AbnormalVolumes abnormal = AbnormalVolumes.unreported();
        abnormal.pageListed(false, page("", true, true));
        assertThat(abnormal.published()).as("the end of a pass begun before").isZero();

        abnormal.pageListed(true, page("2", true, false));
        assertThat(abnormal.published()).as("not yet ended").isZero();
        abnormal.pageListed(false, page("", false, true));
        assertThat(abnormal.published()).isEqualTo(2);

        abnormal.pageListed(true, page("", false, false, false));
        assertThat(abnormal.published()).isZero();
    }
}
