/**
 * NVMe in-band authentication (DH-HMAC-CHAP), the controller's side: each node's secrets, generated
 * on first need and kept in one Secret per node in the controller's namespace, and the per-volume
 * Secret that kubelet hands to NodeStageVolume. Secret values never reach a log, an event, a
 * condition, an error or a publish context: the types that hold them print as redacted.
 */
package pillar.controller.auth;
