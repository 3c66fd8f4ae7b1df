package pillar.node.attach;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

/**
 * What every {@link Attacher} does, run per protocol on its fakes ({@code *AttacherFakeTest}) and on the
 * VM's kernel ({@code *AttacherKernelIT}): attach yields something to stage and {@link Attacher#attached}
 * finds it, also from a new attacher (a restarted node); attaching twice makes one connection; detach
 * leaves nothing attached and is idempotent; a context the host or target refuses fails naming it and
 * leaves nothing behind.
 *
 * @param <C> the protocol's context
 * @param <A> what it yields
 */
abstract class AttacherContract<C, A extends Attachment> {
    /** A new attacher over the same host each call, as a restarted node makes one. */
    abstract Attacher<C, A> newAttacher();

    abstract Protocol protocol();

    /** A context the host can attach: the target exports it to this host. */
    abstract C reachable() throws Exception;

    /** A well-formed context the target refuses (not exported). */
    abstract C refused() throws Exception;

    /** What an error about {@code context} must name (the subsystem, the export). */
    abstract String named(C context);

    /** How many connections (controllers, mounts) of {@code context} the host has. */
    abstract long connections(C context) throws Exception;

    /** Asserts that {@code attachment} can be staged: the device exists, the mount is the volume's. */
    abstract void assertStageable(A attachment) throws Exception;

    @Test
    void servesItsProtocol() {
        Attacher<C, A> attacher = newAttacher();
        assertThat(attacher.protocol()).isEqualTo(protocol());
    }

    @Test
    void attachYieldsSomethingToStageThatANewAttacherFinds() throws Exception {
        Attacher<C, A> attacher = newAttacher();
        C context = reachable();
        List<String> heard = new ArrayList<>();
        A attachment = attacher.attach(context, heard::add);
        assertStageable(attachment);
        if (attachment instanceof Attachment.Device device) {
            assertThat(heard).as("the link, heard before the device").containsExactly(device.link());
        } else {
            assertThat(heard).isEmpty();
        }
        assertThat(attacher.attached(context)).contains(attachment);
        assertThat(newAttacher().attached(context)).as("after a restart").contains(attachment);
        attacher.detach(context);
    }

    @Test
    void attachingTwiceReusesTheFirst() throws Exception {
        Attacher<C, A> attacher = newAttacher();
        C context = reachable();
        A first = attacher.attach(context);
        assertThat(newAttacher().attach(context)).isEqualTo(first);
        assertThat(connections(context)).isEqualTo(1);
        attacher.detach(context);
    }

    @Test
    void detachLeavesNothingAttachedAndIsIdempotent() throws Exception {
        Attacher<C, A> attacher = newAttacher();
        C context = reachable();
        attacher.attach(context);
        attacher.detach(context);
        assertThat(attacher.attached(context)).isEmpty();
        assertThat(connections(context)).isZero();
        attacher.detach(context);
        assertThat(connections(context)).isZero();
    }

    @Test
    void detachingWhatIsNotAttachedIsSuccess() throws Exception {
        Attacher<C, A> attacher = newAttacher();
        C context = reachable();
        attacher.detach(context);
        assertThat(attacher.attached(context)).isEmpty();
        assertThat(connections(context)).isZero();
    }

    @Test
    void aRefusedContextFailsNamingItAndLeavesNothing() throws Exception {
        Attacher<C, A> attacher = newAttacher();
        C context = refused();
        assertThatThrownBy(() -> attacher.attach(context)).hasMessageContaining(named(context));
        assertThat(attacher.attached(context)).isEmpty();
        assertThat(connections(context)).isZero();
    }
}
