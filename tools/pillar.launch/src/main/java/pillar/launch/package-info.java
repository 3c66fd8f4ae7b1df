/**
 * How the developer tools and the tests start a pillar-csi workload as its own JVM: one command line
 * ({@link pillar.launch.WorkloadCommand}: packaged module path, flags, AOT cache), one child process
 * with its log, its deadlines and the ways it ends ({@link pillar.launch.ChildProcess}), and one
 * readiness probe ({@link pillar.launch.HealthProbe}). Never shipped.
 */
package pillar.launch;
