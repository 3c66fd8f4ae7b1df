package pillar.controller.agent;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.StreamObserver;
import pillar.api.agent.v1.AdoptVolumeRequest;
import pillar.api.agent.v1.AdoptVolumeResponse;
import pillar.api.agent.v1.ExportProtocol;
import pillar.api.agent.v1.AgentServiceGrpc;
import pillar.api.agent.v1.AllowInitiatorRequest;
import pillar.api.agent.v1.AllowInitiatorResponse;
import pillar.api.agent.v1.Backend;
import pillar.api.agent.v1.BackendKind;
import pillar.api.agent.v1.GetCapabilitiesRequest;
import pillar.api.agent.v1.GetCapabilitiesResponse;
import pillar.api.agent.v1.GetCapacityRequest;
import pillar.api.agent.v1.GetCapacityResponse;

/**
 * A tiny agent API server for the client's tests: answers GetCapabilities, GetCapacity,
 * AllowInitiator and AdoptVolume (mutations: counted, and answered without doing anything; AdoptVolume
 * with a volume of {@link #ADOPTED_SIZE} bytes, or UNIMPLEMENTED as an agent of before it once
 * {@link #withoutAdoptVolume}) like the real agent, unless told to fail the next calls with a status,
 * or to hold them until released.
 */
final class TestAgentService extends AgentServiceGrpc.AgentServiceImplBase {
    final AtomicInteger capabilityCalls = new AtomicInteger();
    final AtomicInteger allowCalls = new AtomicInteger();
    final AtomicInteger adoptCalls = new AtomicInteger();
    static final long ADOPTED_SIZE = 1L << 30;
    private volatile boolean adopts = true;
    private final Deque<StatusRuntimeException> failures = new ArrayDeque<>();
    private volatile CountDownLatch hold = new CountDownLatch(0);

    /** The next calls fail with these statuses, in order. */
    synchronized void failNext(Status... statuses) {
        java.util.List.of(statuses).forEach(status -> failures.add(status.asRuntimeException()));
    }

    /** The next call fails with this failure, details included. */
    synchronized void failNext(StatusRuntimeException failure) {
        failures.add(failure);
    }

    /** Calls wait (at most a minute) until {@link #release()}. */
    void holdCalls() {
        hold = new CountDownLatch(1);
    }

    void release() {
        hold.countDown();
    }

    private synchronized StatusRuntimeException nextFailure() {
        return failures.poll();
    }

    @Override
    public void getCapabilities(GetCapabilitiesRequest request, StreamObserver<GetCapabilitiesResponse> response) {
        capabilityCalls.incrementAndGet();
        if (!answer(response)) {
            return;
        }
        response.onNext(GetCapabilitiesResponse.newBuilder().setAgentVersion("9.9.9-test")
                .addBackends(Backend.newBuilder().setName("fast").setKind(BackendKind.BACKEND_KIND_LVM_THIN)
                        .setPool("vg0").setParent("pool0"))
                .addExportProtocols(ExportProtocol.EXPORT_PROTOCOL_NVMEOF_TCP).build());
        response.onCompleted();
    }

    @Override
    public void getCapacity(GetCapacityRequest request, StreamObserver<GetCapacityResponse> response) {
        if (!answer(response)) {
            return;
        }
        if (!request.getBackend().equals("fast")) {
            response.onError(Status.INVALID_ARGUMENT.withDescription("backend: '" + request.getBackend()
                    + "' is not configured on this agent; it has [fast]").asRuntimeException());
            return;
        }
        response.onNext(GetCapacityResponse.newBuilder().setTotalBytes(1000).setAvailableBytes(600).build());
        response.onCompleted();
    }

    @Override
    public void allowInitiator(AllowInitiatorRequest request, StreamObserver<AllowInitiatorResponse> response) {
        allowCalls.incrementAndGet();
        if (answer(response)) {
            response.onNext(AllowInitiatorResponse.getDefaultInstance());
            response.onCompleted();
        }
    }

    @Override
    public void adoptVolume(AdoptVolumeRequest request, StreamObserver<AdoptVolumeResponse> response) {
        adoptCalls.incrementAndGet();
        if (!adopts) {
            super.adoptVolume(request, response); // the generated base: UNIMPLEMENTED
            return;
        }
        if (answer(response)) {
            response.onNext(AdoptVolumeResponse.newBuilder().setVolume(pillar.api.agent.v1.Volume.newBuilder()
                    .setVolumeId(request.getVolumeId()).setBackend(request.getBackend()).setSizeBytes(ADOPTED_SIZE)
                    .setDevicePath("/dev/vg0/" + request.getVolumeId())).build());
            response.onCompleted();
        }
    }

    /** Answers AdoptVolume as an agent of before it does: UNIMPLEMENTED. */
    void withoutAdoptVolume() {
        adopts = false;
    }

    /** Waits if held, fails if told to; true when the call should be answered normally. */
    private boolean answer(StreamObserver<?> response) {
        try {
            hold.await(1, TimeUnit.MINUTES);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        StatusRuntimeException failure = nextFailure();
        if (failure != null) {
            response.onError(failure);
            return false;
        }
        return true;
    }
}
