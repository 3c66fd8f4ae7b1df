package pillar.runtime.server;

import java.util.List;

import io.grpc.BindableService;
import pillar.api.csi.v1.ControllerGrpc;
import pillar.api.csi.v1.GroupControllerGrpc;
import pillar.api.csi.v1.NodeGrpc;
import pillar.api.csi.v1.SnapshotMetadataGrpc;

/**
 * Every CSI service for one socket. A gRPC server answers a call to an unregistered service with
 * NOT_FOUND, but the CSI spec wants UNIMPLEMENTED, so each service a workload does not serve is
 * registered with the generated base class, whose methods all answer UNIMPLEMENTED.
 */
public final class CsiServices {
    private CsiServices() {
    }

    /** The controller workload's services: Identity and Controller; Node and the rest unimplemented. */
    public static List<BindableService> controller(IdentityService identity, ControllerGrpc.ControllerImplBase controller) {
        return List.of(identity, controller, new UnimplementedNode(), new UnimplementedGroupController(),
                new UnimplementedSnapshotMetadata());
    }

    /** The node workload's services: Identity and Node; Controller and the rest unimplemented. */
    public static List<BindableService> node(IdentityService identity, NodeGrpc.NodeImplBase node) {
        return List.of(identity, node, new UnimplementedController(), new UnimplementedGroupController(),
                new UnimplementedSnapshotMetadata());
    }

    /** A Controller service whose every call answers UNIMPLEMENTED. */
    public static final class UnimplementedController extends ControllerGrpc.ControllerImplBase {
    }

    /** A Node service whose every call answers UNIMPLEMENTED. */
    public static final class UnimplementedNode extends NodeGrpc.NodeImplBase {
    }

    private static final class UnimplementedGroupController extends GroupControllerGrpc.GroupControllerImplBase {
    }

    private static final class UnimplementedSnapshotMetadata extends SnapshotMetadataGrpc.SnapshotMetadataImplBase {
    }
}
