package pillar.node.service;

import java.io.UncheckedIOException;
import java.util.Optional;

import io.grpc.Status;
import pillar.runtime.server.ErrorMapping;
import pillar.node.nvme.InitiatorException;
import pillar.node.stage.StageRecordException;
import pillar.node.sys.StuckInKernelException;
import pillar.node.sys.SyscallException;

/** The node's own failures as gRPC statuses: a kernel that does not answer, an initiator that cannot connect, local I/O. */
final class NodeErrors {
    /**
     * For {@link pillar.runtime.server.UnaryCall}: a call the kernel still holds is ABORTED (retry once it
     * lets go), one it let go of too late DEADLINE_EXCEEDED; a connect that fails is UNAVAILABLE;
     * syscalls, stage records and local I/O are INTERNAL.
     */
    static final ErrorMapping MAPPING = e -> Optional.ofNullable(switch (e) {
        case StuckInKernelException s -> s.stillStuck() ? Status.ABORTED : Status.DEADLINE_EXCEEDED;
        case InitiatorException i -> Status.UNAVAILABLE;
        case SyscallException s -> Status.INTERNAL;
        case StageRecordException s -> Status.INTERNAL;
        case UncheckedIOException u -> Status.INTERNAL;
        default -> null;
    }).map(status -> status.withDescription(e.getMessage()).asRuntimeException());

    private NodeErrors() {
    }
}
