/**
 * Which replica acts: leader election on a coordination.k8s.io Lease
 * ({@link pillar.controller.leader.LeaderElection}), with a leader that stops acting on its own clock
 * once it could not renew within its renew deadline. The volumes do not depend on it being perfect:
 * fencing refuses a deposed leader's late agent calls.
 */
package pillar.controller.leader;
