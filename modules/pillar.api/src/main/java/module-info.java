/**
 * The contracts every pillar-csi workload shares.
 *
 * <ul>
 *   <li>{@code pillar.api.csi.v1}: the CSI v1 messages and services, generated from {@code csi.proto};</li>
 *   <li>{@code pillar.api.agent.v1}: the agent API, generated from {@code agent.proto};</li>
 *   <li>{@code pillar.api.fencing}: the fencing token, the mark the rules keep, and the rules;</li>
 *   <li>{@code pillar.api.value}: the validated identifiers and sizes;</li>
 *   <li>{@code pillar.api.context}: the keys of CSI's publish and volume contexts.</li>
 * </ul>
 *
 * <p>Deviation, on purpose: three support packages are exported too, because every workload needs
 * them and a copy per module would drift: {@code pillar.api.server} (the Helidon server with gRPC and
 * health, CSI Identity, configuration), {@code pillar.api.exec} (commands as argument lists with
 * deadlines) and {@code pillar.api.durable} (crash-safe files). They hold no workload logic.
 */
module pillar.api {
    requires transitive com.google.protobuf;
    requires transitive io.grpc;
    requires transitive io.grpc.stub;
    requires transitive io.helidon.config;
    requires transitive io.helidon.common.tls;
    requires transitive io.helidon.webserver.grpc;
    requires io.grpc.protobuf;
    requires io.grpc.netty.shaded;
    requires com.google.common;
    requires io.helidon.webserver;
    requires io.helidon.webserver.observe;
    requires io.helidon.webserver.observe.health;
    requires io.helidon.health;
    requires io.helidon.logging.common;
    requires java.logging;
    // service providers Helidon finds at run time (and jlink must include)
    requires io.helidon.config.yaml;
    requires io.helidon.logging.jul;

    exports pillar.api.csi.v1;
    exports pillar.api.agent.v1;
    exports pillar.api.fencing;
    exports pillar.api.value;
    exports pillar.api.context;
    exports pillar.api.server;
    exports pillar.api.exec;
    exports pillar.api.durable;
}
