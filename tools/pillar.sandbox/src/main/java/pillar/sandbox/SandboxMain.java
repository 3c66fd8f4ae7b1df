package pillar.sandbox;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.logging.LogManager;

import io.helidon.logging.common.LogConfig;

/**
 * The sandbox driver, a developer tool (not shipped). {@code dev/sandbox} boots the VM and runs
 * {@code up} there:
 * <pre>
 * up --project DIR --out DIR [--backend lvm|lvm-thin|zfs] [--fs ext4|xfs|block] [--scenario lifecycle|snapshot]
 *    [--protocol nvme-tcp|nfs] [--keep] [-- CMD ARGS...]
 * train --project DIR
 * kube-api PORT KUBECONFIG CRD_DIR
 * </pre>
 * See {@link SandboxRun}, {@link AotTraining} (run on the host first, to record the JVMs' AOT caches)
 * and {@link KubeApi} ({@code kube-api}: the emulated API alone, until killed; jlink/train.sh and
 * tools/pillar.bench start it so).
 */
public final class SandboxMain {
    private static final String USAGE = "usage: up --project DIR --out DIR [--backend lvm|lvm-thin|zfs] "
            + "[--fs ext4|xfs|block] [--scenario lifecycle|snapshot] [--protocol nvme-tcp|nfs] [--keep] [-- CMD ARGS...]"
            + " | train --project DIR"
            + " | kube-api PORT KUBECONFIG CRD_DIR";

    private SandboxMain() {
    }

    public static void main(String[] args) throws Exception {
        LogConfig.configureRuntime();
        quietLogging();
        if (args.length == 3 && args[0].equals("train") && args[1].equals("--project")) {
            exit(() -> AotTraining.run(Path.of(args[2]).toAbsolutePath(), System.out));
            return;
        }
        if (args.length == 4 && args[0].equals("kube-api")) {
            KubeApi api = KubeApi.start(Integer.parseInt(args[1]), Path.of(args[2]), Path.of(args[3]));
            System.out.println("Kubernetes API EMULATOR (fabric8 mock server, CRUD mode) on " + api.url() + ", CRDs "
                    + api.crds() + "; kubeconfig " + args[2]);
            Thread.currentThread().join(); // until killed
            return;
        }
        SandboxRun.Options options;
        try {
            options = parse(args);
        } catch (IllegalArgumentException e) {
            System.err.println(e.getMessage());
            System.err.println(USAGE);
            System.exit(2);
            return;
        }
        exit(() -> SandboxRun.run(options, System.out));
    }

    /**
     * The sandbox's logging ({@code pillar/sandbox/logging.properties}: warnings only, the emulator's
     * request lines off), unless the caller named a file in {@code java.util.logging.config.file}.
     */
    static void quietLogging() {
        if (System.getProperty("java.util.logging.config.file") != null) {
            return;
        }
        try (InputStream in = SandboxMain.class.getResourceAsStream("logging.properties")) {
            LogManager.getLogManager().readConfiguration(in);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private interface Command {
        int run() throws Exception;
    }

    /** Runs a command and exits with its status, even though library threads (the emulator's) still run. */
    private static void exit(Command command) {
        int status;
        try {
            status = command.run();
        } catch (Throwable e) {
            e.printStackTrace();
            status = 1;
        }
        System.out.flush();
        System.exit(status);
    }

    static SandboxRun.Options parse(String[] args) {
        if (args.length == 0 || !args[0].equals("up")) {
            throw new IllegalArgumentException("unknown command" + (args.length == 0 ? "" : " '" + args[0] + "'"));
        }
        Path project = null;
        Path out = null;
        Backend backend = Backend.LVM_THIN;
        VolumeMode mode = VolumeMode.EXT4;
        SandboxRun.Scenario scenario = SandboxRun.Scenario.LIFECYCLE;
        SandboxRun.Protocol protocol = SandboxRun.Protocol.NVME_TCP;
        List<String> blockOptions = new ArrayList<>();
        boolean keep = false;
        List<String> command = new ArrayList<>();
        for (int i = 1; i < args.length; i++) {
            switch (args[i]) {
                case "--project" -> project = Path.of(value(args, ++i, "--project")).toAbsolutePath();
                case "--out" -> out = Path.of(value(args, ++i, "--out")).toAbsolutePath();
                case "--backend" -> {
                    backend = Backend.of(value(args, ++i, "--backend"));
                    blockOptions.add("--backend");
                }
                case "--fs" -> {
                    mode = VolumeMode.of(value(args, ++i, "--fs"));
                    blockOptions.add("--fs");
                }
                case "--scenario" -> {
                    scenario = SandboxRun.Scenario.of(value(args, ++i, "--scenario"));
                    if (scenario != SandboxRun.Scenario.LIFECYCLE) {
                        blockOptions.add("--scenario " + args[i]);
                    }
                }
                case "--protocol" -> protocol = SandboxRun.Protocol.of(value(args, ++i, "--protocol"));
                case "--keep" -> keep = true;
                case "--" -> {
                    command.addAll(List.of(args).subList(i + 1, args.length));
                    i = args.length;
                }
                default -> throw new IllegalArgumentException("unknown option '" + args[i] + "'");
            }
        }
        if (project == null || out == null) {
            throw new IllegalArgumentException("--project and --out are required");
        }
        if (protocol == SandboxRun.Protocol.NFS && !blockOptions.isEmpty()) {
            throw new IllegalArgumentException("--protocol nfs plays examples/sandbox/nfs.yaml (ZFS datasets, nfs4, ReadWriteMany):"
                    + " " + String.join(" and ", blockOptions) + " are for NVMe/TCP only");
        }
        return new SandboxRun.Options(project, out, backend, mode, scenario, protocol, keep, List.copyOf(command));
    }

    private static String value(String[] args, int i, String option) {
        if (i >= args.length) {
            throw new IllegalArgumentException(option + " needs a value");
        }
        return args[i];
    }
}
