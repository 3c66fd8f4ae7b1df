package pillar.node.attach;

import static org.assertj.core.api.Assertions.assertThat;

import pillar.api.value.Nqn;
import pillar.node.nvme.Controller;
import pillar.node.nvme.FabricsTarget;
import pillar.node.nvme.SysfsNvme;

/**
 * {@link AttacherContract} for {@link NvmeAttacher}, on whatever "kernel" a subclass gives: one subsystem
 * exported on 127.0.0.1; the refused context names a subsystem next to it that is not exported.
 */
abstract class NvmeAttacherContract extends AttacherContract<NvmeTarget, Attachment.Device> {
    private SysfsNvme sysfs;
    private Nqn exported;
    private int trsvcid;

    /**
     * What the contract runs on, set by the subclass before each test: the host's NVMe state as the
     * attacher reads it, and the subsystem the target exports to this host at 127.0.0.1:{@code trsvcid}.
     */
    void runOn(SysfsNvme sysfs, Nqn exported, int trsvcid) {
        this.sysfs = sysfs;
        this.exported = exported;
        this.trsvcid = trsvcid;
    }

    @Override
    Protocol protocol() {
        return Protocol.NVME_TCP;
    }

    @Override
    NvmeTarget reachable() {
        return target(exported);
    }

    @Override
    NvmeTarget refused() {
        return target(Nqn.of(exported.value() + "-not-exported"));
    }

    @Override
    String named(NvmeTarget context) {
        return context.target().nqn().value();
    }

    @Override
    long connections(NvmeTarget context) {
        return sysfs.controllers().stream().filter(c -> c.subsysnqn().equals(named(context))).count();
    }

    @Override
    void assertStageable(Attachment.Device device) throws Exception {
        assertThat(device.node()).exists();
        assertThat(sysfs.controller(Controller.parse(device.link()))).get()
                .satisfies(c -> assertThat(c.subsysnqn()).isEqualTo(exported.value()));
    }

    private NvmeTarget target(Nqn nqn) {
        return new NvmeTarget(new FabricsTarget(nqn, FabricsTarget.TCP, "127.0.0.1", trsvcid, 30, 2, 0));
    }
}
