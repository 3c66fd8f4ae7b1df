package pillar.node.service;

import java.util.function.Supplier;

import io.grpc.stub.StreamObserver;
import pillar.api.csi.v1.NodeExpandVolumeRequest;
import pillar.api.csi.v1.NodeExpandVolumeResponse;
import pillar.api.csi.v1.NodeGetCapabilitiesRequest;
import pillar.api.csi.v1.NodeGetCapabilitiesResponse;
import pillar.api.csi.v1.NodeGetInfoRequest;
import pillar.api.csi.v1.NodeGetInfoResponse;
import pillar.api.csi.v1.NodeGetVolumeStatsRequest;
import pillar.api.csi.v1.NodeGetVolumeStatsResponse;
import pillar.api.csi.v1.NodeGrpc;
import pillar.api.csi.v1.NodePublishVolumeRequest;
import pillar.api.csi.v1.NodePublishVolumeResponse;
import pillar.api.csi.v1.NodeServiceCapability;
import pillar.api.csi.v1.NodeStageVolumeRequest;
import pillar.api.csi.v1.NodeStageVolumeResponse;
import pillar.api.csi.v1.NodeUnpublishVolumeRequest;
import pillar.api.csi.v1.NodeUnpublishVolumeResponse;
import pillar.api.csi.v1.NodeUnstageVolumeRequest;
import pillar.api.csi.v1.NodeUnstageVolumeResponse;
import pillar.node.attach.NfsAttacher;
import pillar.node.attach.NvmeAttacher;
import pillar.node.attach.SubsystemLocks;
import pillar.runtime.metrics.WorkloadMetrics;
import pillar.runtime.server.Fabric;
import pillar.runtime.server.UnaryCall;
import pillar.runtime.server.VolumeLocks;

/**
 * CSI Node over gRPC. Each call is: validate the request into values ({@link Requests}; bad input
 * is answered before anything is locked or touched), take the volume ({@link VolumeLocks}; a call
 * that changes a volume with another call in flight is ABORTED), run the logic ({@link Stager}, {@link NfsStager}
 * by the volume's protocol, each on its protocol's attacher; {@link Publisher}, {@link Expander},
 * {@link VolumeStatsReader}), and map what went wrong to a gRPC code. The node's
 * own meters ({@link NodeMeters}) are registered in the metrics it is given.
 */
public final class NodeGrpcService extends NodeGrpc.NodeImplBase {
    private static final NodeServiceCapability.RPC.Type[] CAPABILITIES = {
        NodeServiceCapability.RPC.Type.STAGE_UNSTAGE_VOLUME,
        NodeServiceCapability.RPC.Type.GET_VOLUME_STATS,
        NodeServiceCapability.RPC.Type.EXPAND_VOLUME,
        NodeServiceCapability.RPC.Type.VOLUME_CONDITION,
        // lets Kubernetes send SINGLE_NODE_SINGLE_WRITER for ReadWriteOncePod
        NodeServiceCapability.RPC.Type.SINGLE_NODE_MULTI_WRITER,
    };

    private final NodePorts ports;
    private final Requests requests;
    private final VolumeLocks locks;
    private final Stager stager;
    private final NfsStager nfsStager;
    private final Publisher publisher;
    private final Expander expander;
    private final VolumeStatsReader stats;

    public NodeGrpcService(NodePorts ports, VolumeLocks locks, WorkloadMetrics metrics) {
        NodeMeters meters = new NodeMeters(ports, metrics);
        this.ports = ports;
        this.requests = new Requests(ports.paths(), ports.nodeId().value());
        this.locks = locks;
        SubsystemLocks subsystems = new SubsystemLocks();
        this.stager = new Stager(ports, subsystems,
                new NvmeAttacher(ports.initiator(), ports.sysfs(), ports.hostNqn(), ports.attachTimeout(), subsystems,
                        ports.tlsKeys()), meters);
        this.nfsStager = new NfsStager(ports, new NfsAttacher(ports.mounter()), meters);
        this.publisher = new Publisher(ports, meters);
        this.expander = new Expander(ports);
        this.stats = new VolumeStatsReader(ports, meters);
    }

    @Override
    public void nodeStageVolume(NodeStageVolumeRequest request, StreamObserver<NodeStageVolumeResponse> response) {
        answer("NodeStageVolume", response, () -> {
            switch (Requests.protocol(request.getPublishContextMap())) {
                case NFS -> {
                    Requests.StageNfs call = requests.stageNfs(request);
                    locks.run(call.volume(), "NodeStageVolume", () -> run(() -> nfsStager.stage(call)));
                }
                case NVME_TCP -> {
                    Requests.Stage call = requests.stage(request);
                    locks.run(call.volume(), "NodeStageVolume", () -> run(() -> stager.stage(call)));
                }
            }
            return NodeStageVolumeResponse.getDefaultInstance();
        });
    }

    @Override
    public void nodeUnstageVolume(NodeUnstageVolumeRequest request, StreamObserver<NodeUnstageVolumeResponse> response) {
        answer("NodeUnstageVolume", response, () -> {
            Requests.Unstage call = requests.unstage(request);
            locks.run(call.volume(), "NodeUnstageVolume", () -> run(() -> stager.unstage(call)));
            return NodeUnstageVolumeResponse.getDefaultInstance();
        });
    }

    @Override
    public void nodePublishVolume(NodePublishVolumeRequest request, StreamObserver<NodePublishVolumeResponse> response) {
        answer("NodePublishVolume", response, () -> {
            Requests.Publish call = requests.publish(request);
            locks.run(call.volume(), "NodePublishVolume", () -> run(() -> publisher.publish(call)));
            return NodePublishVolumeResponse.getDefaultInstance();
        });
    }

    @Override
    public void nodeUnpublishVolume(NodeUnpublishVolumeRequest request,
                                    StreamObserver<NodeUnpublishVolumeResponse> response) {
        answer("NodeUnpublishVolume", response, () -> {
            Requests.Unpublish call = requests.unpublish(request);
            locks.run(call.volume(), "NodeUnpublishVolume", () -> run(() -> publisher.unpublish(call)));
            return NodeUnpublishVolumeResponse.getDefaultInstance();
        });
    }

    @Override
    public void nodeGetVolumeStats(NodeGetVolumeStatsRequest request,
                                   StreamObserver<NodeGetVolumeStatsResponse> response) {
        answer("NodeGetVolumeStats", response, () -> {
            // read-only, so not locked: kubelet polls stats, and a poll during an expand must not fail
            return stats.stats(requests.stats(request));
        });
    }

    @Override
    public void nodeExpandVolume(NodeExpandVolumeRequest request, StreamObserver<NodeExpandVolumeResponse> response) {
        answer("NodeExpandVolume", response, () -> {
            Requests.Expand call = requests.expand(request);
            long size = locks.run(call.volume(), "NodeExpandVolume", () -> expander.expand(call));
            return NodeExpandVolumeResponse.newBuilder().setCapacityBytes(size).build();
        });
    }

    @Override
    public void nodeGetCapabilities(NodeGetCapabilitiesRequest request,
                                    StreamObserver<NodeGetCapabilitiesResponse> response) {
        NodeGetCapabilitiesResponse.Builder out = NodeGetCapabilitiesResponse.newBuilder();
        for (NodeServiceCapability.RPC.Type type : CAPABILITIES) {
            out.addCapabilities(NodeServiceCapability.newBuilder()
                    .setRpc(NodeServiceCapability.RPC.newBuilder().setType(type)));
        }
        response.onNext(out.build());
        response.onCompleted();
    }

    /**
     * The CSI node ID is this host's NVMe host NQN: the controller publishes a volume to it by
     * allowing exactly that NQN in the target's ACL, so the ID the CO passes back is what the ACL needs.
     * Its topology is pillar-csi's one segment ({@link Fabric}).
     */
    @Override
    public void nodeGetInfo(NodeGetInfoRequest request, StreamObserver<NodeGetInfoResponse> response) {
        response.onNext(NodeGetInfoResponse.newBuilder().setNodeId(ports.hostNqn().value())
                .setAccessibleTopology(Fabric.segment()).build());
        response.onCompleted();
    }

    private static Void run(Runnable action) {
        action.run();
        return null;
    }

    private static <T> void answer(String rpc, StreamObserver<T> response, Supplier<T> call) {
        UnaryCall.answer(rpc, response, NodeErrors.MAPPING, call);
    }
}
