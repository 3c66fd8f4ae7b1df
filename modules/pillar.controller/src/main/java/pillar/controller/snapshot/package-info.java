/**
 * The snapshot state machine: each snapshot's durable record (a PillarSnapshotState behind the
 * {@link pillar.controller.snapshot.SnapshotRecords} port), CreateSnapshot and DeleteSnapshot on the
 * agent fenced by the snapshot's own lifecycle, and the sources restores and clones are made from.
 * It builds on the volume state machine ({@code pillar.controller.volume}); the CSI service calls it.
 */
package pillar.controller.snapshot;
