package pillar.controller.snapshot;

/** The {@link SnapshotRecordsContract} held against the in-memory records the lower tiers use. */
class InMemorySnapshotRecordsTest extends SnapshotRecordsContract {
    @Override
    SnapshotRecords records() {
        return new InMemorySnapshotRecords();
    }
}
