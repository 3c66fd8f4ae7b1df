/**
 * Stale-operation fencing: the token every volume-changing agent call carries, the durable mark
 * the agent keeps per volume, and the rules ({@link pillar.api.fencing.Fencing}) both sides share.
 */
package pillar.api.fencing;
