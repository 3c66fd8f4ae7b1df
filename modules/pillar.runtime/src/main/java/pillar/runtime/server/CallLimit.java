package pillar.runtime.server;

import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicBoolean;

import io.grpc.ForwardingServerCall;
import io.grpc.ForwardingServerCallListener;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.Status;

/**
 * At most {@code limit} gRPC calls served at once; one more is answered UNAVAILABLE at once (a
 * client retries it), never queued. A call holds its place from its start until its handler has
 * returned and the call is closed, or it was cancelled before its handler ran: a handler still
 * running after its caller gave up (a stuck command) keeps its place, so stuck calls cannot pile up
 * beyond the limit. (Helidon's own request limit does not cover its gRPC protocol handler.)
 */
final class CallLimit implements ServerInterceptor {
    private final int limit;
    private final Semaphore places;

    CallLimit(int limit) {
        this.limit = limit;
        this.places = new Semaphore(limit);
    }

    /** The places free now. */
    int free() {
        return places.availablePermits();
    }

    @Override
    public <Q, R> ServerCall.Listener<Q> interceptCall(ServerCall<Q, R> call, Metadata headers, ServerCallHandler<Q, R> next) {
        if (!places.tryAcquire()) {
            call.close(Status.UNAVAILABLE.withDescription("this server is serving " + limit
                    + " calls at once, its limit (server.max-concurrent-calls): retry"), new Metadata());
            return new ServerCall.Listener<>() { };
        }
        AtomicBoolean released = new AtomicBoolean();
        AtomicBoolean inHandler = new AtomicBoolean();
        Runnable release = () -> {
            if (released.compareAndSet(false, true)) {
                places.release();
            }
        };
        // a call that ends while its handler runs keeps its place until the handler returns
        Runnable releaseOutsideHandler = () -> {
            if (!inHandler.get()) {
                release.run();
            }
        };
        ServerCall<Q, R> closing = new ForwardingServerCall.SimpleForwardingServerCall<>(call) {
            @Override
            public void close(Status status, Metadata trailers) {
                try {
                    super.close(status, trailers);
                } finally {
                    releaseOutsideHandler.run();
                }
            }
        };
        ServerCall.Listener<Q> listener;
        try {
            listener = next.startCall(closing, headers);
        } catch (RuntimeException e) {
            release.run();
            throw e;
        }
        return new ForwardingServerCallListener.SimpleForwardingServerCallListener<>(listener) {
            @Override
            public void onHalfClose() {
                // a unary handler runs here, to its end
                inHandler.set(true);
                try {
                    super.onHalfClose();
                } finally {
                    inHandler.set(false);
                    release.run();
                }
            }

            @Override
            public void onCancel() {
                try {
                    super.onCancel();
                } finally {
                    releaseOutsideHandler.run();
                }
            }

            @Override
            public void onComplete() {
                try {
                    super.onComplete();
                } finally {
                    releaseOutsideHandler.run();
                }
            }
        };
    }
}
