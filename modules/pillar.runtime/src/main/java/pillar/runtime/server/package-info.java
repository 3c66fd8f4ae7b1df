/**
 * What every workload's process shares: the Helidon server with gRPC on a UNIX socket or TCP and
 * health over HTTP, CSI Identity, the volume logging context, configuration loading, and mutual
 * TLS from PEM files that are read again when they are renewed.
 */
package pillar.runtime.server;
