package pillar.runtime.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.StreamObserver;
import org.junit.jupiter.api.Test;
import pillar.runtime.exec.Command;
import pillar.runtime.exec.CommandFailedException;
import pillar.api.value.VolumeId;

/** Every workload answers a unary call the same way: its result once, or one status in the shared order. */
class UnaryCallTest {
    /** A workload's own mapping that knows one exception, and claims everything else it sees too, to prove the order. */
    private static final ErrorMapping OWN = e -> e instanceof UnsupportedOperationException
            ? Optional.of(Status.UNIMPLEMENTED.withDescription("own: " + e.getMessage()).asRuntimeException())
            : Optional.of(Status.DATA_LOSS.withDescription("the workload's mapping was asked about " + e).asRuntimeException());

    @Test
    void aResultIsAnsweredOnceAndCompleted() {
        Recorder<String> response = new Recorder<>();
        UnaryCall.answer("Probe", response, OWN, () -> "ok");
        assertThat(response.values).containsExactly("ok");
        assertThat(response.completed).isTrue();
        assertThat(response.error).isNull();
    }

    @Test
    void statusesCsiCodesAndBadValuesAreAnsweredBeforeTheWorkloadsMappingIsAsked() {
        assertThat(code(new StatusRuntimeException(Status.UNAVAILABLE.withDescription("starting")), OWN))
                .isEqualTo(Status.Code.UNAVAILABLE);
        assertThat(code(CsiException.notFound("volume pvc-a does not exist"), OWN)).isEqualTo(Status.Code.NOT_FOUND);
        assertThat(code(expectInvalid(), OWN)).isEqualTo(Status.Code.INVALID_ARGUMENT);
        assertThat(code(new UnsupportedOperationException("x"), OWN)).isEqualTo(Status.Code.UNIMPLEMENTED);
    }

    @Test
    void whatNoMappingKnowsIsInternalAndACommandOutOfTimeIsDeadlineExceeded() {
        Command command = Command.of(Duration.ofSeconds(1), "lvs");
        assertThat(code(new CommandFailedException(command, -1, "", true), ErrorMapping.NONE))
                .isEqualTo(Status.Code.DEADLINE_EXCEEDED);
        assertThat(code(new CommandFailedException(command, 5, "boom", false), ErrorMapping.NONE)).isEqualTo(Status.Code.INTERNAL);
        assertThat(UnaryCall.statusOf(new IllegalStateException("odd"), ErrorMapping.NONE))
                .satisfies(s -> assertThat(s.getCode()).isEqualTo(Status.Code.INTERNAL))
                .satisfies(s -> assertThat(s.getDescription()).contains("IllegalStateException", "odd"));
    }

    @Test
    void aFailureIsAnsweredAsItsStatusWithItsMessageAndNothingElse() {
        Recorder<String> response = new Recorder<>();
        UnaryCall.answer("Probe", response, ErrorMapping.NONE, () -> {
            throw CsiException.alreadyExists("volume pvc-a exists with another size");
        });
        assertThat(response.values).isEmpty();
        assertThat(response.completed).isFalse();
        assertThat(response.error).isInstanceOfSatisfying(StatusRuntimeException.class, e -> {
            assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.ALREADY_EXISTS);
            assertThat(e.getStatus().getDescription()).isEqualTo("volume pvc-a exists with another size");
        });
    }

    private static RuntimeException expectInvalid() {
        try {
            VolumeId.of("../etc");
        } catch (RuntimeException e) {
            return e;
        }
        throw new AssertionError("VolumeId accepted ../etc");
    }

    private static Status.Code code(RuntimeException e, ErrorMapping own) {
        return UnaryCall.statusOf(e, own).getCode();
    }

    private static final class Recorder<T> implements StreamObserver<T> {
        final List<T> values = new ArrayList<>();
        Throwable error;
        boolean completed;

        @Override
        public void onNext(T value) {
            values.add(value);
        }

        @Override
        public void onError(Throwable t) {
            error = t;
        }

        @Override
        public void onCompleted() {
            completed = true;
        }
    }
}
