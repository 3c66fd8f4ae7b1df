package pillar.runtime.server;

import java.util.function.BooleanSupplier;

import io.grpc.stub.StreamObserver;
import pillar.api.csi.v1.GetPluginCapabilitiesRequest;
import pillar.api.csi.v1.GetPluginCapabilitiesResponse;
import pillar.api.csi.v1.GetPluginInfoRequest;
import pillar.api.csi.v1.GetPluginInfoResponse;
import pillar.api.csi.v1.IdentityGrpc;
import pillar.api.csi.v1.ProbeRequest;
import pillar.api.csi.v1.ProbeResponse;

/**
 * CSI Identity, served by every workload on its socket. {@code Probe} reports the workload's own
 * readiness (for the controller: its informers synced; for the node: its state directory usable);
 * {@code GetPluginCapabilities} is {@link Driver#pluginCapabilities()} on every socket.
 */
public final class IdentityService extends IdentityGrpc.IdentityImplBase {
    private final BooleanSupplier ready;

    public IdentityService(BooleanSupplier ready) {
        this.ready = ready;
    }

    @Override
    public void getPluginInfo(GetPluginInfoRequest request, StreamObserver<GetPluginInfoResponse> response) {
        response.onNext(GetPluginInfoResponse.newBuilder()
                .setName(Driver.NAME)
                .setVendorVersion(Driver.version())
                .build());
        response.onCompleted();
    }

    @Override
    public void getPluginCapabilities(GetPluginCapabilitiesRequest request,
                                      StreamObserver<GetPluginCapabilitiesResponse> response) {
        GetPluginCapabilitiesResponse.Builder out = GetPluginCapabilitiesResponse.newBuilder()
                .addAllCapabilities(Driver.pluginCapabilities());
        response.onNext(out.build());
        response.onCompleted();
    }

    @Override
    public void probe(ProbeRequest request, StreamObserver<ProbeResponse> response) {
        response.onNext(ProbeResponse.newBuilder()
                .setReady(com.google.protobuf.BoolValue.of(ready.getAsBoolean()))
                .build());
        response.onCompleted();
    }
}
