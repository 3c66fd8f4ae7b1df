/**
 * What every pillar-csi workload runs on, and nothing else needs: the Helidon server with gRPC and
 * health, CSI Identity, mutual TLS and the configuration ({@code pillar.runtime.server}); Prometheus
 * metrics ({@code pillar.runtime.metrics}); host commands as argument lists with deadlines
 * ({@code pillar.runtime.exec}); crash-safe files ({@code pillar.runtime.durable}); the kernel's keyrings for
 * TLS keys ({@code pillar.runtime.keys}, the agent's and the node's only). It holds no workload logic.
 *
 * <p>Exported to the three workloads only: a client of the contracts in {@code pillar.api} gets
 * neither a web server nor a process runner with them. (The project's tools and the tests that load
 * a workload from the class path reach these packages as the unnamed module, by
 * {@code --add-exports} where a named module is under test.)
 */
module pillar.runtime {
    requires transitive pillar.api;
    requires transitive io.helidon.config;
    requires transitive io.helidon.common.tls;
    requires transitive io.helidon.webserver.grpc;
    requires transitive io.prometheus.metrics.core;
    requires transitive io.prometheus.metrics.model;
    requires io.prometheus.writer.text;
    requires io.grpc.netty.shaded;
    requires io.helidon.webserver;
    requires io.helidon.webserver.observe;
    requires io.helidon.webserver.observe.health;
    requires io.helidon.health;
    requires io.helidon.logging.common;
    requires java.logging;
    requires com.sun.jna; // add_key(2), keyctl(2): pillar.runtime.keys
    // service providers Helidon finds at run time (and jlink must include)
    requires io.helidon.config.yaml;
    requires io.helidon.logging.jul;

    exports pillar.runtime.server to pillar.agent, pillar.node, pillar.controller;
    exports pillar.runtime.exec to pillar.agent, pillar.node, pillar.controller;
    exports pillar.runtime.durable to pillar.agent, pillar.node, pillar.controller;
    exports pillar.runtime.metrics to pillar.agent, pillar.node, pillar.controller;
    exports pillar.runtime.keys to pillar.agent, pillar.node;
}
