package pillar.runtime.metrics;

import io.grpc.ForwardingServerCall;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.Status;

/**
 * Times every gRPC call a workload serves, from its start to the status it closes with, into
 * {@value WorkloadMetrics#OPERATION_SECONDS}: failures and calls refused before their handler ran
 * included. The method label is the bare method name of a service the server registered, so its
 * values are a closed set.
 */
public final class OperationTimer implements ServerInterceptor {
    private final WorkloadMetrics metrics;

    public OperationTimer(WorkloadMetrics metrics) {
        this.metrics = metrics;
    }

    @Override
    public <Q, R> ServerCall.Listener<Q> interceptCall(ServerCall<Q, R> call, Metadata headers,
                                                       ServerCallHandler<Q, R> next) {
        long started = System.nanoTime();
        String method = call.getMethodDescriptor().getBareMethodName();
        ServerCall<Q, R> timed = new ForwardingServerCall.SimpleForwardingServerCall<>(call) {
            @Override
            public void close(Status status, Metadata trailers) {
                metrics.operations().labelValues(metrics.workload(), method, status.getCode().name())
                        .observe((System.nanoTime() - started) / 1e9);
                super.close(status, trailers);
            }
        };
        return next.startCall(timed, headers);
    }
}
