package pillar.agent.export;

import java.time.Instant;

import pillar.agent.configfs.HostAuth;

/**
 * A host's DH-HMAC-CHAP keys as an export record keeps them, with when AllowInitiator last changed
 * them. The kernel holds one set of keys per host, shared by every subsystem that admits it: when
 * records disagree (a rotation reached some volumes only) the newest keys are the host's.
 */
public record RecordedAuth(HostAuth auth, Instant since) {
}
