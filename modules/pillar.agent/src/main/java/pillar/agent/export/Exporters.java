package pillar.agent.export;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import pillar.agent.backend.KernelExports;
import pillar.agent.backend.VolumeBackend;

/**
 * The agent's export protocols, one {@link ProtocolExporter} each, in a fixed order: a record goes to the
 * protocol whose records it is, a listing or the start-up re-apply runs protocol by protocol in that order.
 * As {@link KernelExports}: what the kernel's servers of all of them export now (an adoption asks it).
 */
public final class Exporters implements KernelExports {
    private final List<ProtocolExporter<?, ?>> protocols;

    public Exporters(List<ProtocolExporter<?, ?>> protocols) {
        this.protocols = List.copyOf(protocols);
    }

    /** The first protocol's answer that is not empty. */
    @Override
    public Optional<String> device(Path device) {
        return protocols.stream().map(p -> p.device(device)).flatMap(Optional::stream).findFirst();
    }

    /** The first protocol's answer that is not empty. */
    @Override
    public Optional<String> directory(Path directory) {
        return protocols.stream().map(p -> p.directory(directory)).flatMap(Optional::stream).findFirst();
    }

    /** The protocol whose records {@code record} is one of. */
    public ProtocolExporter<?, ?> of(VolumeExport record) {
        return protocols.stream().filter(p -> p.records().isInstance(record)).findFirst()
                .orElseThrow(() -> new IllegalStateException("no export protocol applies " + record.getClass().getSimpleName()));
    }

    /** {@link ProtocolExporter#drift} of the record, by its protocol. */
    public List<String> drift(VolumeExport record) {
        return drift(of(record), record);
    }

    /** {@link ProtocolExporter#remove} of the record, by its protocol. */
    public void remove(VolumeExport record) {
        remove(of(record), record);
    }

    /** Every protocol's records in {@code store}, protocol by protocol, each in volume order; a damaged one left out. */
    public List<VolumeExport> list(ExportStore store) {
        List<VolumeExport> all = new ArrayList<>();
        protocols.forEach(p -> all.addAll(store.list(p.records())));
        return all;
    }

    /** {@link ProtocolExporter#reapply} of each protocol in turn; the failures of all. */
    public List<String> reapply(ExportStore store, Map<String, VolumeBackend> backends) {
        List<String> failures = new ArrayList<>();
        protocols.forEach(p -> failures.addAll(p.reapply(store, backends)));
        return failures;
    }

    private static <R extends VolumeExport> List<String> drift(ProtocolExporter<R, ?> protocol, VolumeExport record) {
        return protocol.drift(protocol.records().cast(record));
    }

    private static <R extends VolumeExport> void remove(ProtocolExporter<R, ?> protocol, VolumeExport record) {
        protocol.remove(protocol.records().cast(record));
    }
}
