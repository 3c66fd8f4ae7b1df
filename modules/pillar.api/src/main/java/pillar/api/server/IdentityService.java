package pillar.api.server;

import java.util.List;
import java.util.function.BooleanSupplier;

import io.grpc.stub.StreamObserver;
import pillar.api.csi.v1.GetPluginCapabilitiesRequest;
import pillar.api.csi.v1.GetPluginCapabilitiesResponse;
import pillar.api.csi.v1.GetPluginInfoRequest;
import pillar.api.csi.v1.GetPluginInfoResponse;
import pillar.api.csi.v1.IdentityGrpc;
import pillar.api.csi.v1.PluginCapability;
import pillar.api.csi.v1.ProbeRequest;
import pillar.api.csi.v1.ProbeResponse;

/**
 * CSI Identity, served by every workload on its socket. {@code Probe} reports the workload's own
 * readiness (for the controller: its informers synced; for the node: its state directory usable).
 */
public final class IdentityService extends IdentityGrpc.IdentityImplBase {
    private final List<PluginCapability.Service.Type> capabilities;
    private final boolean onlineExpansion;
    private final BooleanSupplier ready;

    public IdentityService(List<PluginCapability.Service.Type> capabilities, BooleanSupplier ready) {
        this(capabilities, false, ready);
    }

    /**
     * @param onlineExpansion whether volumes grow while published (VolumeExpansion ONLINE), which
     *                        external-resizer reads before expanding a volume in use
     */
    public IdentityService(List<PluginCapability.Service.Type> capabilities, boolean onlineExpansion, BooleanSupplier ready) {
        this.capabilities = List.copyOf(capabilities);
        this.onlineExpansion = onlineExpansion;
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
        GetPluginCapabilitiesResponse.Builder out = GetPluginCapabilitiesResponse.newBuilder();
        for (PluginCapability.Service.Type type : capabilities) {
            out.addCapabilities(PluginCapability.newBuilder()
                    .setService(PluginCapability.Service.newBuilder().setType(type)));
        }
        if (onlineExpansion) {
            out.addCapabilities(PluginCapability.newBuilder().setVolumeExpansion(PluginCapability.VolumeExpansion.newBuilder()
                    .setType(PluginCapability.VolumeExpansion.Type.ONLINE)));
        }
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
