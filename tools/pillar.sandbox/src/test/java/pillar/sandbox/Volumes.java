package pillar.sandbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.Map;
import java.util.UUID;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import pillar.api.context.PublishContext;
import pillar.api.csi.v1.Volume;
import pillar.api.csi.v1.VolumeCapability;

/** What the suite's scenarios share: a volume attached to a node and the checks around it. */
final class Volumes {
    static final long MIB = 1 << 20;

    private Volumes() {
    }

    /** A claim's name as external-provisioner makes it. */
    static String pvName() {
        return "pvc-" + UUID.randomUUID();
    }

    /** The call fails with exactly {@code code}. */
    static void assertCode(Status.Code code, ThrowingCallable call) {
        assertThatThrownBy(call).isInstanceOfSatisfying(StatusRuntimeException.class,
                e -> assertThat(e.getStatus().getCode()).as(e.getStatus().toString()).isEqualTo(code));
    }
}
