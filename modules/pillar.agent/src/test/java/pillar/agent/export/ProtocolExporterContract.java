package pillar.agent.export;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import pillar.agent.backend.BackendVolume;
import pillar.agent.backend.VolumeBackend;
import pillar.agent.nfs.StateRelease;
import pillar.api.value.VolumeId;

/**
 * What every {@link ProtocolExporter} does, whatever its protocol: a record applied is exported to exactly its
 * clients with no drift; re-applying changes nothing; an allow admits the client (alone when exclusive); a
 * deny fences exactly that client off; a remove leaves nothing; drift shows a change made behind the
 * exporter's back and a re-apply repairs it; start-up's re-apply restores every record the store holds and
 * removes the exports of this installation's volumes that have none. Subclasses give the protocol on a fake (unit tier) or on the
 * kernel ({@code *KernelIT}, the VM tier); each test removes what it exported.
 *
 * @param <R> the protocol's record
 * @param <C> the protocol's client
 */
public abstract class ProtocolExporterContract<R extends VolumeExport, C> {
    /** The backend every record names, which holds both volumes. */
    protected static final String BACKEND = "contract";

    @TempDir
    Path stateDir;
    private final List<R> made = new ArrayList<>();
    private ProtocolExporter<R, C> exporter;

    /** A new exporter under test, on the subclass's kernel or fake; made once per test. */
    protected abstract ProtocolExporter<R, C> newExporter();

    /** The exporter under test. */
    protected final ProtocolExporter<R, C> exporter() {
        if (exporter == null) {
            exporter = newExporter();
        }
        return exporter;
    }

    /** The ID of volume {@code n}: named as the kernel tier's clean-up recognises ({@code contract-}). */
    protected static VolumeId volumeId(int n) {
        return VolumeId.of("contract-export-" + n);
    }

    /** The record of volume {@code n} (0 or 1, each an exportable volume of its own) exported to exactly {@code clients}. */
    protected abstract R record(int n, Set<C> clients);

    /** Volume {@code n} as the backend holds it (its device or mount path the record's). */
    protected abstract BackendVolume volume(int n);

    /** Client {@code n} (0, 1, 2: three different ones). */
    protected abstract C client(int n);

    /** The record with {@code client} allowed besides the others, as the agent writes it before an allow. */
    protected abstract R allowing(R record, C client);

    /** The record without {@code client}, as the agent writes it before a deny. */
    protected abstract R denying(R record, C client);

    /** Someone else changes the kernel's export of the record: {@code client}'s access is removed there. */
    protected abstract void removeBehindItsBack(R record, C client);

    /** Applies the record and remembers it for the clean-up. */
    protected final R applied(R record) {
        made.add(record);
        exporter().apply(record);
        return record;
    }

    /** Removes every export a test made (idempotent: a subclass may call it before its own clean-up). */
    @AfterEach
    protected final void removeWhatItMade() {
        made.forEach(r -> exporter().remove(r));
        made.clear();
    }

    @Test
    void anAppliedRecordIsExportedToExactlyItsClientsWithoutDrift() {
        R record = applied(record(0, Set.of(client(0), client(1))));

        assertThat(exporter().exported(record)).isTrue();
        assertThat(exporter().admitted(record)).containsExactlyInAnyOrder(client(0), client(1));
        assertThat(exporter().drift(record)).isEmpty();
        assertThat(exporter().records()).isEqualTo(record.getClass());
    }

    @Test
    void reapplyingARecordInPlaceChangesNothing() {
        R record = applied(record(0, Set.of(client(0))));

        exporter().apply(record);
        exporter().apply(record);

        assertThat(exporter().admitted(record)).containsExactly(client(0));
        assertThat(exporter().drift(record)).isEmpty();
    }

    @Test
    void applyingARecordWithFewerClientsRemovesTheOthers() {
        R record = applied(record(0, Set.of(client(0), client(1))));

        R fewer = applied(denying(record, client(1)));

        assertThat(exporter().admitted(fewer)).containsExactly(client(0));
        assertThat(exporter().drift(fewer)).isEmpty();
    }

    @Test
    void anAllowAdmitsTheClientAndKeepsTheOthers() {
        R record = applied(record(0, Set.of(client(0))));

        R more = allowing(record, client(1));
        exporter().allow(more, client(1), false);
        exporter().allow(more, client(1), false);

        assertThat(exporter().admitted(more)).containsExactlyInAnyOrder(client(0), client(1));
        assertThat(exporter().drift(more)).isEmpty();
    }

    @Test
    void anExclusiveAllowAdmitsTheClientAlone() {
        R record = applied(record(0, Set.of(client(0), client(1))));

        R alone = allowing(record(0, Set.of()), client(2));
        exporter().allow(alone, client(2), true);

        assertThat(exporter().admitted(alone)).containsExactly(client(2));
        assertThat(exporter().drift(alone)).isEmpty();
    }

    @Test
    void aDenyFencesOffExactlyThatClient() {
        R record = applied(record(0, Set.of(client(0), client(1))));
        R other = applied(record(1, Set.of(client(0))));

        R without = denying(record, client(0));
        assertThat(exporter().deny(record, client(0))).isEqualTo(StateRelease.DONE);

        assertThat(exporter().admitted(without)).containsExactly(client(1));
        assertThat(exporter().drift(without)).isEmpty();
        assertThat(exporter().admitted(other)).as("the client on another volume").containsExactly(client(0));
        assertThat(exporter().deny(without, client(0))).as("a repeated deny").isEqualTo(StateRelease.DONE);
        assertThat(exporter().admitted(without)).containsExactly(client(1));
    }

    @Test
    void aRemoveLeavesNothingAndOnlyThatVolume() {
        R record = applied(record(0, Set.of(client(0))));
        R other = applied(record(1, Set.of(client(0))));

        exporter().remove(record);
        exporter().remove(record);

        assertThat(exporter().exported(record)).isFalse();
        assertThat(exporter().admitted(record)).isEmpty();
        assertThat(exporter().drift(record)).as("the record against nothing").isNotEmpty();
        assertThat(exporter().exported(other)).isTrue();
        assertThat(exporter().drift(other)).isEmpty();
    }

    @Test
    void driftShowsAChangeBehindItsBackAndAReapplyRepairsIt() {
        R record = applied(record(0, Set.of(client(0), client(1))));

        removeBehindItsBack(record, client(1));

        assertThat(exporter().drift(record)).isNotEmpty().anySatisfy(line -> assertThat(line).contains(client(1).toString()));
        exporter().apply(record);
        assertThat(exporter().drift(record)).isEmpty();
        assertThat(exporter().admitted(record)).containsExactlyInAnyOrder(client(0), client(1));
    }

    @Test
    void startUpRestoresWhatTheKernelForgotAndRemovesItsOwnUnrecordedExport() {
        ExportStore store = new ExportStore(stateDir);
        R recorded = applied(record(0, Set.of(client(0), client(1))));
        store.write(recorded);
        R unrecorded = applied(record(1, Set.of(client(0))));
        removeBehindItsBack(recorded, client(1));
        Map<String, VolumeBackend> backends = Map.of(BACKEND, new HeldVolumes(BACKEND, List.of(volume(0), volume(1))));

        assertThat(exporter().reapply(store, backends)).isEmpty();

        assertThat(exporter().drift(recorded)).isEmpty();
        assertThat(exporter().admitted(recorded)).containsExactlyInAnyOrder(client(0), client(1));
        assertThat(exporter().exported(unrecorded)).as("an export of ours with no record").isFalse();
        assertThat(exporter().reapply(store, backends)).as("once more").isEmpty();
        assertThat(exporter().drift(recorded)).isEmpty();
    }

    @Test
    void startUpLeavesTheExportOfAVolumeNoBackendHolds() {
        ExportStore store = new ExportStore(stateDir);
        R foreign = applied(record(1, Set.of(client(0))));

        assertThat(exporter().reapply(store, Map.of(BACKEND, new HeldVolumes(BACKEND, List.of(volume(0)))))).isEmpty();

        assertThat(exporter().exported(foreign)).as("another installation's").isTrue();
        assertThat(exporter().drift(foreign)).isEmpty();
    }

    @Test
    void aRecordNeverAppliedDriftsAndIsNotExported() {
        R record = record(0, Set.of(client(0)));

        assertThat(exporter().exported(record)).isFalse();
        assertThat(exporter().drift(record)).isNotEmpty();
    }
}
