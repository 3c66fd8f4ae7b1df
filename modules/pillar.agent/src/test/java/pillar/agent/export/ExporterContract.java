package pillar.agent.export;

import java.nio.file.Path;
import java.util.Set;

import pillar.agent.backend.BackendVolume;
import pillar.agent.configfs.NvmetTarget;
import pillar.agent.configfs.PortAddress;
import pillar.api.value.ByteSize;
import pillar.api.value.Nqn;

/**
 * {@link ProtocolExporterContract} for NVMe-oF/TCP: {@link Exporter} on an {@link NvmetTarget}, each volume
 * exported with its ACL on (so that a host can be allowed alone), hosts and volumes named as the kernel tier
 * cleans them up ({@code :contract-}). A change behind its back is a host removed on the target directly.
 */
public abstract class ExporterContract extends ProtocolExporterContract<ExportRecord, Nqn> {
    /** Where the kernel tier's other contracts do not listen (they use 4481 and 4482). */
    static final PortAddress ADDRESS = PortAddress.tcp("127.0.0.1", 4483);

    /** The target the exporter drives. */
    protected abstract NvmetTarget target();

    /** The block device behind volume {@code n} (0 or 1). */
    protected abstract Path device(int n);

    @Override
    protected final Exporter newExporter() {
        return new Exporter(target());
    }

    @Override
    protected final ExportRecord record(int n, Set<Nqn> clients) {
        return new ExportRecord(volumeId(n), BACKEND, device(n), ADDRESS, true, clients);
    }

    @Override
    protected final BackendVolume volume(int n) {
        return new BackendVolume(volumeId(n), ByteSize.ofMiB(16), device(n));
    }

    @Override
    protected final Nqn client(int n) {
        return Nqn.of("nqn.2014-08.org.nvmexpress:uuid:contract-export-host-" + n);
    }

    @Override
    protected final ExportRecord allowing(ExportRecord record, Nqn host) {
        return record.withAllowedHosts(plus(record.allowedHosts(), host));
    }

    @Override
    protected final ExportRecord denying(ExportRecord record, Nqn host) {
        return record.withAllowedHosts(record.allowedHosts().stream().filter(h -> !h.equals(host))
                .collect(java.util.stream.Collectors.toSet()));
    }

    @Override
    protected final void removeBehindItsBack(ExportRecord record, Nqn host) {
        target().disallowHost(record.subsystem(), host);
    }

    private static Set<Nqn> plus(Set<Nqn> hosts, Nqn host) {
        Set<Nqn> more = new java.util.HashSet<>(hosts);
        more.add(host);
        return more;
    }
}
