package pillar.agent;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import pillar.agent.backend.Texts;
import pillar.agent.backend.VolumeBackend;
import pillar.agent.backend.zfs.ZfsVersion;
import pillar.agent.config.BackendConfig;
import pillar.agent.configfs.NvmetTarget;
import pillar.agent.configfs.TargetPresence;
import pillar.api.agent.v1.BackendKind;
import pillar.runtime.exec.Command;
import pillar.runtime.exec.ProcessRunner;

/**
 * What the agent checks on its host before it serves, and what it does about each finding.
 *
 * <p>It refuses to start when every export would fail: configfs not mounted, nvmet not loaded. It
 * starts and warns when the rest stays usable: {@code nvmet_tcp} not loaded (the kernel loads it
 * itself when the first port is enabled, if it can: refusing would stop an agent that works), a plain
 * directory standing in for configfs (a sandbox), and each backend whose pool or volume group is missing
 * or unusable. A missing pool must not take the other backends down, and it may appear later (a pool
 * imported or a volume group activated after the agent started) without a restart: until then that
 * backend's calls answer UNAVAILABLE, as they would anyway. With a ZFS backend it refuses to start when the
 * {@code zfs} tools are of another release line than the loaded module ({@link #zfsTools}).
 */
public final class StartupChecks {
    /** The nvmet sysfs module directory that shows the TCP transport is loaded (also when built in). */
    static final String NVMET_TCP = "module/nvmet_tcp";
    static final String MODULES_HINT = "are nvmet and nvmet_tcp loaded?";
    /** The loaded zfs module's version, below sysfs. */
    static final String ZFS_MODULE_VERSION = "module/zfs/version";

    private StartupChecks() {
    }

    /**
     * What was found, in words: {@code refusals} stop the agent, {@code warnings} are logged as such,
     * {@code notes} say what is fine.
     */
    public record Report(List<String> refusals, List<String> warnings, List<String> notes) {
        public Report {
            refusals = List.copyOf(refusals);
            warnings = List.copyOf(warnings);
            notes = List.copyOf(notes);
        }

        /** This report's findings, then {@code other}'s. */
        public Report plus(Report other) {
            return new Report(concat(refusals, other.refusals), concat(warnings, other.warnings), concat(notes, other.notes));
        }

        private static List<String> concat(List<String> a, List<String> b) {
            List<String> all = new ArrayList<>(a);
            all.addAll(b);
            return all;
        }
    }

    /**
     * @param configfsRoot where configfs should be mounted (what {@code target} writes under)
     * @param sysRoot      sysfs ({@code /sys}), where loaded modules show
     */
    public static Report run(NvmetTarget target, Path configfsRoot, Path sysRoot, Map<String, VolumeBackend> backends) {
        List<String> refusals = new ArrayList<>();
        List<String> warnings = new ArrayList<>();
        List<String> notes = new ArrayList<>();
        TargetPresence presence = target.presence();
        switch (presence) {
            case NOT_MOUNTED -> refusals.add("configfs is not mounted at " + configfsRoot + ": mount it (mount -t configfs none "
                    + configfsRoot + ") or set agent.configfs-root to where it is; " + MODULES_HINT);
            case NVMET_MISSING -> refusals.add(configfsRoot.resolve("nvmet") + " does not exist although configfs is mounted: "
                    + MODULES_HINT + " (modprobe nvmet nvmet_tcp)");
            case STAND_IN -> warnings.add(configfsRoot + " is not a configfs mount but holds an nvmet directory: exports are"
                    + " written to a plain directory and reach no kernel (a stand-in for a sandbox; wrong on a storage node)");
            case READY -> notes.add("nvmet target at " + configfsRoot.resolve("nvmet"));
        }
        if (presence == TargetPresence.READY && !Files.isDirectory(sysRoot.resolve(NVMET_TCP))) {
            warnings.add("the nvmet_tcp module is not loaded (" + sysRoot.resolve(NVMET_TCP) + " is missing): " + MODULES_HINT
                    + " The kernel loads it when the first port is enabled if it can; if it cannot, exports fail then");
        }
        backends.forEach((name, backend) -> {
            try {
                VolumeBackend.Capacity capacity = backend.capacity();
                notes.add("backend " + name + ": " + capacity.available() + " of " + capacity.total() + " available");
            } catch (RuntimeException e) {
                warnings.add("backend " + name + " is not usable: " + e.getMessage() + ". The agent serves its other backends;"
                        + " calls for " + name + " fail until it is there (no restart needed)");
            }
        });
        return new Report(refusals, warnings, notes);
    }

    /**
     * The warnings for the zfs-dataset backends ({@code datasetBackends}) when the NFS server does not serve
     * ({@code nfsProblem}, {@link pillar.agent.nfs.NfsPresence}): the agent starts, serves its block backends,
     * and GetCapabilities gives those backends the problem {@value pillar.agent.nfs.NfsPresence#REASON}.
     */
    public static List<String> nfsWarnings(List<String> datasetBackends, java.util.Optional<String> nfsProblem) {
        if (nfsProblem.isEmpty()) {
            return datasetBackends.isEmpty() ? List.of() : List.of("NFS server serves NFSv4.2 with rpc.mountd for backends " + datasetBackends);
        }
        return datasetBackends.stream().map(name -> "backend " + name + " exports over NFS, and " + nfsProblem.get()
                + ": its volumes cannot be exported until the NFS server serves (no restart needed)").toList();
    }

    /**
     * The {@code zfs} tools against the loaded module, when {@code backends} has a ZFS one (nothing otherwise):
     * {@code zfs version}'s tools of another release line (major.minor) than {@code <sysRoot>/module/zfs/version}
     * refuse the start, naming both; another patch level is a warning. The module not loaded, or tools that do not
     * say their version, check nothing: those backends' own warnings say what is wrong.
     *
     * @param timeout the deadline of {@code zfs version}
     */
    public static Report zfsTools(List<BackendConfig> backends, ProcessRunner runner, Duration timeout, Path sysRoot) {
        if (backends.stream().noneMatch(b -> b.kind() == BackendKind.BACKEND_KIND_ZFS_ZVOL || b.kind() == BackendKind.BACKEND_KIND_ZFS_DATASET)) {
            return new Report(List.of(), List.of(), List.of());
        }
        Path file = sysRoot.resolve(ZFS_MODULE_VERSION);
        if (!Files.exists(file)) {
            return new Report(List.of(), List.of(), List.of("the zfs module is not loaded (" + file + " is missing):"
                    + " the zfs tools' version is not checked"));
        }
        ZfsVersion module;
        ZfsVersion tools;
        try {
            module = ZfsVersion.parse(Files.readString(file));
            tools = ZfsVersion.userland(runner.run(new Command(List.of("zfs", "version"), timeout)).stdout());
        } catch (IOException | RuntimeException e) {
            return new Report(List.of(), List.of("the zfs tools' version cannot be checked against the host's zfs module: "
                    + Texts.oneLine(String.valueOf(e.getMessage()))), List.of());
        }
        if (!tools.sameLine(module)) {
            return new Report(List.of(zfsMismatch(tools, module)), List.of(), List.of());
        }
        if (tools.patch() != module.patch()) {
            return new Report(List.of(), List.of("the zfs tools are " + tools + " and the host's zfs module is " + module
                    + ": one release line (" + module.line() + "), other patch levels; tools of the module's own release are safest"),
                    List.of());
        }
        return new Report(List.of(), List.of(), List.of("zfs tools " + tools + " with the host's zfs module " + module));
    }

    /** The refusal of tools of another release line than the module's: both versions, and what to do. */
    static String zfsMismatch(ZfsVersion tools, ZfsVersion module) {
        return "the zfs tools are " + tools + " (zfs version) but the host's zfs module is " + module + " (release lines "
                + tools.line() + " and " + module.line() + "): tools of another release than the module's can fail on or"
                + " misread its pools. Give the agent zfsutils-linux of the module's release " + module.line()
                + " (its image has Debian 12's), or run the agent with the host's own tools (the pillar-agent tarball),"
                + " or load a zfs module of release " + tools.line() + " (docs/troubleshooting.md)";
    }
}
