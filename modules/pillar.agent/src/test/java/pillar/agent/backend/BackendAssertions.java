package pillar.agent.backend;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.assertj.core.api.ThrowableAssert.ThrowingCallable;

/** Assertions on {@link BackendException}s. */
public final class BackendAssertions {
    private BackendAssertions() {
    }

    /** The call throws a BackendException of {@code kind} whose message contains {@code fragment}. */
    public static void assertFails(ThrowingCallable call, BackendException.Kind kind, String fragment) {
        assertThatThrownBy(call).isInstanceOfSatisfying(BackendException.class, e -> assertThat(e.kind()).as(e.getMessage()).isEqualTo(kind))
                .hasMessageContaining(fragment);
    }

    /**
     * Deletes the volume, retrying while the delete answers BUSY (a linear LV's zeroing runs in the background
     * and answers BUSY with its progress while it takes longer than the call waits), for at most 10 minutes.
     */
    public static void deleted(VolumeBackend backend, pillar.api.value.VolumeId id) {
        long end = System.nanoTime() + java.time.Duration.ofMinutes(10).toNanos();
        while (true) {
            try {
                backend.delete(id);
                return;
            } catch (BackendException e) {
                if (e.kind() != BackendException.Kind.BUSY || System.nanoTime() - end > 0) {
                    throw e;
                }
                java.util.concurrent.locks.LockSupport.parkNanos(100_000_000L);
            }
        }
    }
}
