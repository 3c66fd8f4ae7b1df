/**
 * The NVMe-oF target through nvmet configfs: the {@link pillar.agent.configfs.NvmetTarget} port and its
 * kernel adapter {@link pillar.agent.configfs.ConfigfsNvmetTarget}, which writes (ensure, link, remove)
 * and reads ({@link pillar.agent.configfs.NvmetTarget#inspect}); {@link pillar.agent.configfs.ExportDrift}
 * compares what it reads with what is wanted. Internal to {@code pillar.agent} (never exported): only
 * the agent writes configfs.
 *
 * <p>The adapter makes its system calls through a package-private seam, {@code ConfigfsTree}: java.nio
 * on the mounted tree in production, an in-memory model of kernel 6.1's nvmet in the fake test tier
 * ({@code FakeConfigfsTree} in the test sources), with one contract of kernel behaviour run on both.
 *
 * <p>Layout and kernel behaviour (kernel 6.1, measured in the VM tier): the contract tests
 * {@code ConfigfsTreeContract} and {@code NvmetTargetContract}, which run on the fake and on the kernel.
 */
package pillar.agent.configfs;
