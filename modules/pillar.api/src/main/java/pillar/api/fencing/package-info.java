/**
 * Stale-operation fencing: the token every volume-changing agent call carries, the mark the rules
 * keep per volume, and the rules ({@link pillar.api.fencing.Fencing}) both sides share.
 */
package pillar.api.fencing;
