package pillar.controller.volume.state;

/** The {@link VolumeRecordsContract} held against the in-memory records the state-machine tests use. */
class InMemoryVolumeRecordsTest extends VolumeRecordsContract {
    @Override
    VolumeRecords records() {
        return new InMemoryVolumeRecords();
    }
}
