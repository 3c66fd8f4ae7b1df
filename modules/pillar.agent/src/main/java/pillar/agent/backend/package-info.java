/**
 * The storage backends of the agent: one port, {@link pillar.agent.backend.VolumeBackend}, and its
 * adapters for LVM ({@link pillar.agent.backend.LvmVolumeBackend}, linear and thin) and ZFS
 * ({@link pillar.agent.backend.ZfsVolumeBackend}, zvols). {@link pillar.agent.backend.Backends}
 * builds the right one for a configured backend. The adapters keep the policy (ownership, rounding,
 * sizes, zeroing, device waits); each tool's commands are built, run, parsed and their failures mapped
 * in one class per tool, {@code Lvm} and {@code Zfs}.
 *
 * <p>Every command goes through {@link pillar.runtime.exec.ProcessRunner}: an argument list, never a
 * shell, with a deadline. Nothing from outside the agent reaches an argument unchecked: volume IDs
 * arrive validated, pool and group names come validated from the configuration, options are checked
 * against an allow-list before the first command runs, and every size is a number the adapter
 * formats itself. So no argument can read as an option.
 *
 * <p>Ownership: an adapter acts only on volumes it marks at creation (the LVM tag
 * {@value pillar.agent.backend.LvmVolumeBackend#TAG}, the ZFS user property
 * {@value pillar.agent.backend.ZfsVolumeBackend#MANAGED_PROPERTY}); anything else with the same name is
 * a conflict, never adopted, resized or destroyed.
 */
package pillar.agent.backend;
