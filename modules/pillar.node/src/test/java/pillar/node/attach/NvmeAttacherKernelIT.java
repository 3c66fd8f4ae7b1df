package pillar.node.attach;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;

import pillar.api.value.Nqn;
import pillar.node.mount.HostLoops;
import pillar.node.nvme.FabricsInitiator;
import pillar.node.nvme.HostNqn;
import pillar.node.nvme.NvmetExport;
import pillar.node.nvme.SysfsNvme;

/**
 * {@link NvmeAttacherContract} on the VM's kernel: a 16 MiB loop device exported by
 * nvmet on 127.0.0.1 to a host NQN of the test's own, connected through {@code /dev/nvme-fabrics}; the
 * refused context names a subsystem the port does not export. Runs only inside the qemu VM
 * ({@code dev/kernel-it}).
 */
class NvmeAttacherKernelIT extends NvmeAttacherContract {
    private static final Path SYS = Path.of("/sys");
    private static final Path DEV = Path.of("/dev");
    private static final Nqn EXPORTED = Nqn.of("nqn.2024-01.io.pillar-csi:kit-attach");
    private static final int PORT_ID = 8;
    private static final int TRSVCID = 4428;

    @TempDir
    Path work;
    private final SysfsNvme sysfs = new SysfsNvme(SYS, DEV);
    private final SubsystemLocks locks = new SubsystemLocks();
    private HostLoops loops;
    private NvmetExport export;
    private Nqn host;

    @BeforeAll
    static void onlyInTheKernelVm() {
        NvmetExport.requireKernel();
    }

    @BeforeEach
    void exportOne() throws Exception {
        host = HostNqn.loadOrCreate(work.resolve("hostnqn"));
        loops = new HostLoops(work);
        export = new NvmetExport(EXPORTED, loops.create("attach", 16L << 20), host, PORT_ID, TRSVCID, true);
        runOn(sysfs, EXPORTED, TRSVCID);
    }

    @AfterEach
    void removeIt() throws Exception {
        try {
            newAttacher().detach(reachable()); // what a failed test left connected
        } finally {
            try {
                export.close();
            } finally {
                loops.close();
            }
        }
    }

    @Override
    Attacher<NvmeTarget, Attachment.Device> newAttacher() {
        return new NvmeAttacher(new FabricsInitiator(DEV.resolve("nvme-fabrics"), sysfs, host), sysfs, host,
                Duration.ofSeconds(30), locks, pillar.node.service.NodePorts.kernelKeyring());
    }

    @Override
    void assertStageable(Attachment.Device device) throws Exception {
        super.assertStageable(device);
        assertThat(HostLoops.size(device.node())).isEqualTo(16L << 20);
    }

    /**
     * What a worker whose kernel has no NVMe/TCP TLS host (6.1) gets for a TLS target: FAILED_PRECONDITION
     * before anything is connected, never a plaintext fallback; a kernel with it (6.7 on) says so.
     */
    @org.junit.jupiter.api.Test
    void aTlsTargetIsRefusedUpFrontByAKernelWithoutTls() throws Exception {
        FabricsInitiator kernel = new FabricsInitiator(DEV.resolve("nvme-fabrics"), sysfs, host);
        boolean tls = java.nio.file.Files.readString(DEV.resolve("nvme-fabrics")).contains(",tls");
        assertThat(kernel.tlsSupported()).isEqualTo(tls);
        if (tls) {
            return; // NvmeAttacherTlsKernelIT connects over it
        }
        pillar.node.nvme.FabricsTarget plain = reachable().target();
        pillar.node.nvme.FabricsTarget target = new pillar.node.nvme.FabricsTarget(plain.nqn(), plain.transport(), plain.traddr(),
                plain.trsvcid(), plain.ctrlLossTmo(), plain.reconnectDelay(), plain.nrIoQueues(), plain.host(), true);
        NvmeTarget context = new NvmeTarget(target, java.util.Optional.empty(),
                java.util.Optional.of(pillar.api.value.TlsPsk.generate(new java.security.SecureRandom())), java.util.Optional.empty());
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> newAttacher().attach(context, c -> { }))
                .isInstanceOfSatisfying(pillar.runtime.server.CsiException.class, e -> {
                    assertThat(e.code()).isEqualTo(io.grpc.Status.Code.FAILED_PRECONDITION);
                    assertThat(e.getMessage()).contains("cannot connect over it");
                });
        assertThat(newAttacher().attached(reachable())).isEmpty();
    }
}
