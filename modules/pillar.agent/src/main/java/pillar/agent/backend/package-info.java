/**
 * The storage backends of the agent: one port, {@link pillar.agent.backend.VolumeBackend}, what it speaks
 * in (volumes, snapshots, sources, failures) and what every backend shares (background jobs, device
 * waits, block copies). The adapters live by family, each with its tool's typed command layer:
 * {@link pillar.agent.backend.lvm} (linear and thin LVs, {@code Lvm}) and
 * {@link pillar.agent.backend.zfs} (zvols and filesystem datasets, {@code Zfs}).
 * {@link pillar.agent.backend.Backends} builds the right one for a configured backend.
 *
 * <p>Every command goes through {@link pillar.runtime.exec.ProcessRunner}: an argument list, never a
 * shell, with a deadline. Nothing from outside the agent reaches an argument unchecked: volume IDs
 * arrive validated, pool and group names come validated from the configuration, options are checked
 * against an allow-list before the first command runs, and every size is a number the adapter
 * formats itself. So no argument can read as an option.
 *
 * <p>Ownership: an adapter acts only on volumes it marks at creation (an LVM tag, the ZFS user property
 * {@value pillar.agent.backend.zfs.ZfsBackend#MANAGED_PROPERTY}); anything else with the same name is
 * a conflict, never adopted, resized or destroyed.
 */
package pillar.agent.backend;
