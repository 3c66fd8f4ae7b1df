/**
 * The contracts every pillar-csi workload shares, and all this module holds:
 *
 * <ul>
 *   <li>{@code pillar.api.csi.v1}: the CSI v1 messages and services, generated from {@code csi.proto};</li>
 *   <li>{@code pillar.api.agent.v1}: the agent API, generated from {@code agent.proto};</li>
 *   <li>{@code pillar.api.agent}: the reasons an agent's failures carry in their status details, and the
 *       agent API's level;</li>
 *   <li>{@code pillar.api.fencing}: the fencing token, the mark the rules keep, and the rules;</li>
 *   <li>{@code pillar.api.value}: the validated identifiers and sizes;</li>
 *   <li>{@code pillar.api.context}: the keys of CSI's publish and volume contexts.</li>
 * </ul>
 *
 * <p>Exported to all; it needs only protobuf and gRPC's API. What the workloads run on (the server,
 * the process runner, crash-safe files) is {@code pillar.runtime}'s.
 */
module pillar.api {
    requires transitive com.google.protobuf;
    requires transitive io.grpc;
    requires transitive io.grpc.stub;
    requires io.grpc.protobuf;
    requires proto.google.common.protos;
    requires com.google.common;

    exports pillar.api.csi.v1;
    exports pillar.api.agent.v1;
    exports pillar.api.agent;
    exports pillar.api.fencing;
    exports pillar.api.value;
    exports pillar.api.context;
}
