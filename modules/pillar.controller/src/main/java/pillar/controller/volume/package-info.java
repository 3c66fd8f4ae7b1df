/**
 * The volume state machine: each volume's {@link pillar.controller.crd.PillarVolumeState}, read
 * directly and written only by compare-and-swap ({@link pillar.controller.volume.state.VolumeStates}),
 * and the operations on it ({@link pillar.controller.volume.create.Provisioner},
 * {@link pillar.controller.volume.publish.Publisher}, {@link pillar.controller.volume.Expander},
 * {@link pillar.controller.volume.create.LifecycleEnd}), assembled once by
 * {@link pillar.controller.volume.Volumes}. Every agent call that changes a volume is preceded by a
 * write of the next publication generation and carries it as its fencing token
 * ({@link pillar.controller.volume.Steps}). It reaches the cluster only through two ports:
 * {@link pillar.controller.volume.state.VolumeRecords} (the records) and
 * {@link pillar.controller.volume.Inventory} (what it reads), whose fabric8 adapters are in
 * {@code pillar.controller.kube}; the agents through {@link pillar.controller.agent.AgentClient}.
 *
 * <p>This package holds the assembly, the fencing steps, where an agent is dialled, the ports
 * {@code Inventory} and {@code Leading}, export specs, expansion and the states' reconciler; the parts by
 * concern are in its sub-packages {@code state}, {@code request}, {@code create}, {@code publish}, {@code read}.
 */
package pillar.controller.volume;
