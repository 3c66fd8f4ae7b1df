/**
 * The NVMe-oF target through nvmet configfs: the {@link pillar.agent.configfs.NvmetTarget} port and its
 * kernel adapter {@link pillar.agent.configfs.ConfigfsNvmetTarget}. Internal to {@code pillar.agent}
 * (never exported): only the agent writes configfs.
 *
 * <p>Layout and kernel behaviour (kernel 6.1): {@code /work/shared/KERNEL-FACTS.md}.
 */
package pillar.agent.configfs;
