package pillar.node.sys;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Calls that hang on a chosen object the way a syscall in uninterruptible sleep does: the caller's
 * thread stays inside until the test {@linkplain Hang#release() releases} it, and an interrupt does
 * not get it out (it is kept for after). The fakes call {@link #pass} where the kernel would block.
 */
public final class Hangs {
    private final ConcurrentMap<Object, Hang> hangs = new ConcurrentHashMap<>();

    /** From now on, every call on {@code key} hangs until the returned hang is released. */
    public Hang on(Object key) {
        Hang hang = new Hang();
        hangs.put(key, hang);
        return hang;
    }

    /** Where a fake would block in the kernel: hangs if {@code key} has an unreleased hang. */
    public void pass(Object key) {
        Hang hang = hangs.get(key);
        if (hang != null) {
            hang.block();
        }
    }

    /** Waits until every timed-out call of {@code wait} has returned from the "kernel"; fails after {@code max}. */
    public static void awaitNothingStuck(KernelWait wait, java.time.Duration max) throws InterruptedException {
        long until = System.nanoTime() + max.toNanos();
        while (wait.stuckCount() > 0) {
            if (System.nanoTime() - until > 0) {
                throw new AssertionError(wait.stuckCount() + " calls still stuck after " + max);
            }
            Thread.sleep(10);
        }
    }

    /** One chosen hang: how many calls entered it, and the release. */
    public static final class Hang {
        private final CountDownLatch released = new CountDownLatch(1);
        private final CountDownLatch entered = new CountDownLatch(1);
        private final AtomicInteger callers = new AtomicInteger();

        /** Lets every caller inside go on, and later calls pass. */
        public void release() {
            released.countDown();
        }

        /** Waits until a call has entered the hang; fails after 10 s. */
        public void awaitEntered() throws InterruptedException {
            if (!entered.await(10, TimeUnit.SECONDS)) {
                throw new AssertionError("no call entered the hang within 10 s");
            }
        }

        /** How many calls have entered so far (released or not). */
        public int callers() {
            return callers.get();
        }

        private void block() {
            if (released.getCount() == 0) {
                return;
            }
            callers.incrementAndGet();
            entered.countDown();
            boolean interrupted = false;
            while (true) {
                try {
                    released.await();
                    break;
                } catch (InterruptedException e) {
                    interrupted = true; // uninterruptible, as in the kernel
                }
            }
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
