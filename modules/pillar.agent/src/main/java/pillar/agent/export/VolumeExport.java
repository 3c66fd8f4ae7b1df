package pillar.agent.export;

import pillar.api.value.VolumeId;

/**
 * The durable record of one volume's export in one protocol, as {@link ExportStore} keeps it (one file per
 * volume, each protocol's format as it always was): what start-up re-applies and drift is measured against.
 * Each protocol's record keeps its own fields typed; its {@link ProtocolExporter} applies it.
 */
public sealed interface VolumeExport permits ExportRecord, NfsExportRecord {
    /** The exported volume. */
    VolumeId volume();

    /** The backend it lives on. */
    String backend();

    /** What is exported, where, to whom, in words (no secret), for the changes a call reports. */
    String describe();
}
