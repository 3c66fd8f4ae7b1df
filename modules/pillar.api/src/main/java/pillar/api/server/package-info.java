/**
 * What every workload's process shares: the Helidon server with gRPC on a UNIX socket or TCP and
 * health over HTTP, CSI Identity, the volume logging context, and configuration loading.
 */
package pillar.api.server;
