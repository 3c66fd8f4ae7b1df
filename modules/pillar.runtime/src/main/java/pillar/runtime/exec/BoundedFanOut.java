package pillar.runtime.exec;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.Semaphore;
import java.util.function.Function;

/**
 * One task per item on virtual threads, at most {@code atOnce} running at a time, answered in the items'
 * order once every task has finished. A task's failure is an {@link IllegalStateException}
 * "{@code <what>} failed" with its cause; an interrupted wait is {@link InterruptedException}, for the
 * caller to answer in its own terms.
 */
public final class BoundedFanOut {
    private BoundedFanOut() {
    }

    /** Each item's result, in the items' order. */
    public static <T, R> List<R> map(List<T> items, int atOnce, String what, Function<? super T, ? extends R> task)
            throws InterruptedException {
        Semaphore slots = new Semaphore(atOnce);
        try (ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor()) {
            List<Future<R>> running = new ArrayList<>(items.size());
            for (T item : items) {
                running.add(threads.submit(() -> {
                    slots.acquire();
                    try {
                        return task.apply(item);
                    } finally {
                        slots.release();
                    }
                }));
            }
            List<R> results = new ArrayList<>(items.size());
            for (Future<R> result : running) {
                results.add(result.get());
            }
            return results;
        } catch (ExecutionException e) {
            throw new IllegalStateException(what + " failed", e.getCause());
        }
    }

    /** Runs every task, at most {@code atOnce} at a time, and returns once all have. */
    public static void run(List<Runnable> tasks, int atOnce, String what) throws InterruptedException {
        map(tasks, atOnce, what, task -> {
            task.run();
            return null;
        });
    }
}
