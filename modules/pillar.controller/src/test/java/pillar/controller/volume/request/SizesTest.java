package pillar.controller.volume.request;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.grpc.Status;
import org.junit.jupiter.api.Test;
import pillar.api.csi.v1.CapacityRange;
import pillar.runtime.server.CsiException;

public class SizesTest {
    private static final long MIB = 1L << 20;
    private static final long GIB = 1L << 30;

    @Test
    void sizesAreMultiplesOf4MiBWithinTheRange() {
        assertThat(Sizes.forCreate(range(0, 0)).bytes()).isEqualTo(GIB);
        assertThat(Sizes.forCreate(range(1, 0)).bytes()).isEqualTo(4 * MIB);
        assertThat(Sizes.forCreate(range(GIB + 1, 0)).bytes()).isEqualTo(GIB + 4 * MIB);
        assertThat(Sizes.forCreate(range(GIB, GIB)).bytes()).isEqualTo(GIB);
        assertThat(Sizes.forCreate(range(0, 10 * MIB)).bytes()).isEqualTo(8 * MIB);
        assertThat(Sizes.forCreate(range(0, 5 * GIB)).bytes()).isEqualTo(GIB);
        assertThat(Sizes.forExpand(range(3 * MIB, 0)).bytes()).isEqualTo(4 * MIB);
    }

    @Test
    void impossibleRangesAreOutOfRangeAndNegativesInvalid() {
        assertCode(Status.Code.OUT_OF_RANGE, () -> Sizes.forCreate(range(2 * GIB, GIB)));
        assertCode(Status.Code.OUT_OF_RANGE, () -> Sizes.forCreate(range(GIB + 1, GIB + 2)));
        assertCode(Status.Code.OUT_OF_RANGE, () -> Sizes.forCreate(range(0, MIB)));
        assertCode(Status.Code.OUT_OF_RANGE, () -> Sizes.forCreate(range(Long.MAX_VALUE, 0)));
        assertCode(Status.Code.OUT_OF_RANGE, () -> Sizes.forCreate(range(Sizes.MAX + 1, 0)));
        assertCode(Status.Code.INVALID_ARGUMENT, () -> Sizes.forCreate(range(-1, 0)));
        assertCode(Status.Code.INVALID_ARGUMENT, () -> Sizes.forCreate(range(0, -1)));
        assertCode(Status.Code.INVALID_ARGUMENT, () -> Sizes.forExpand(range(0, GIB)));
    }

    @Test
    void anExistingSizeSatisfiesARangeItLiesIn() {
        assertThat(Sizes.satisfies(GIB, range(0, 0))).isTrue();
        assertThat(Sizes.satisfies(GIB, range(GIB, GIB))).isTrue();
        assertThat(Sizes.satisfies(GIB, range(GIB + 1, 0))).isFalse();
        assertThat(Sizes.satisfies(GIB, range(0, GIB - 1))).isFalse();
    }

    private static CapacityRange range(long required, long limit) {
        return CapacityRange.newBuilder().setRequiredBytes(required).setLimitBytes(limit).build();
    }

    public static void assertCode(Status.Code code, Runnable call) {
        assertThatThrownBy(call::run).isInstanceOfSatisfying(CsiException.class, e -> assertThat(e.code()).isEqualTo(code));
    }
}
