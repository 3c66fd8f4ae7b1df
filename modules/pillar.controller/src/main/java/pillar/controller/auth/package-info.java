/**
 * NVMe in-band authentication (DH-HMAC-CHAP), the controller's side: the keys of each publication (a
 * node and a volume, with a host NQN of its own), made at its publish and kept where only the
 * controller reads them ({@link pillar.controller.auth.PublicationKeys}), and the per-volume stage
 * Secret that kubelet hands to NodeStageVolume, which holds only keys of publications made before
 * (docs/security-keys.md). The TLS pre-shared keys of NVMe/TCP TLS are kept beside them, one per
 * publication too. Secret values never reach a log, an event, a condition or an error: the
 * types that hold them print as redacted. The publish context of a publication carries its own keys.
 */
package pillar.controller.auth;
