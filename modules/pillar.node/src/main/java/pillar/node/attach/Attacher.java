package pillar.node.attach;

import java.util.Optional;
import java.util.function.Consumer;

/**
 * How one protocol attaches a volume to this node, the port NodeStageVolume and NodeUnstageVolume
 * work through. {@code C} is the protocol's validated publish context, {@code A} what it yields.
 *
 * <ul>
 *   <li>{@link #attach} is idempotent: attaching what is attached reuses it, never a second connection;</li>
 *   <li>{@link #attached} reads the host only, so it holds after a retry and after a node restart;</li>
 *   <li>{@link #detach} is idempotent: what is not attached is success;</li>
 *   <li>a context the host or the target refuses fails with a message naming it, and leaves nothing attached.</li>
 * </ul>
 */
public interface Attacher<C, A extends Attachment> {
    /** The protocol this attacher serves. */
    Protocol protocol();

    /**
     * Attaches the volume {@code context} names, or finds it attached. {@code linked} hears the kernel's
     * name of the connection (a controller, a session) as soon as it exists, before the wait for the
     * device, so the caller can record it; a protocol without one never calls it.
     */
    A attach(C context, Consumer<String> linked);

    /** {@link #attach(Object, Consumer)} with nobody to hear the link. */
    default A attach(C context) {
        return attach(context, link -> { });
    }

    /** What of {@code context} is attached now, if all of it is. */
    Optional<A> attached(C context);

    /** Undoes {@link #attach}. Idempotent. */
    void detach(C context);
}
