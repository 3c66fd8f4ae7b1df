package pillar.chart;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.concurrent.TimeUnit;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.PodSpec;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The shell the chart renders for the NFS server, run by /bin/sh against a directory laid out as
 * /proc/fs/nfsd and stand-ins for mount and rpc.nfsd that record their arguments: nfsd's filesystem
 * mounted only when missing, rpc.nfsd run only when no nfsd runs, a running nfsd kept or refused by
 * its versions, a start without NFSv4.2 refused; the liveness probe true exactly while an
 * rpc.mountd process exists.
 */
class NfsScriptsTest {
    private static final PodSpec POD = HelmChart.render(NfsRenderTest.ON).agent().getSpec().getTemplate().getSpec();

    @TempDir
    Path tmp;
    private Path nfsd;
    private Path bin;
    private Path calls;

    @BeforeEach
    void lay() throws IOException {
        nfsd = Files.createDirectories(tmp.resolve("proc/fs/nfsd"));
        bin = Files.createDirectories(tmp.resolve("bin"));
        calls = tmp.resolve("calls");
        Files.createFile(calls);
        // mount makes nfsd's files appear, as mounting nfsd's filesystem does; rpc.nfsd starts it
        tool("mount", "echo \"mount $*\" >> " + calls + "\nprintf '0\\n' > " + nfsd + "/threads\n"
                + "printf -- '+3 +4 +4.1 +4.2\\n' > " + nfsd + "/versions\n");
        tool("rpc.nfsd", "echo \"rpc.nfsd $*\" >> " + calls + "\nprintf '%s\\n' \"$RPC_NFSD_THREADS\" > " + nfsd + "/threads\n"
                + "printf -- \"$RPC_NFSD_VERSIONS\\n\" > " + nfsd + "/versions\nprintf '90\\n' > " + nfsd + "/nfsv4gracetime\n");
    }

    @Test
    void withNfsdNotMountedItMountsItAndStartsItWithNfsV42Only() throws Exception {
        Result r = startNfsd("8", "-3 +4 +4.1 +4.2");
        assertThat(r.exit).as(r.output).isZero();
        assertThat(Files.readAllLines(calls)).containsExactly("mount -t nfsd nfsd " + nfsd, "rpc.nfsd -G 90 -N 3 -V 4.2 --no-udp 8");
        assertThat(r.output).contains("nfsd started: -3 +4 +4.1 +4.2; 8 threads; grace 90 s");
        assertThat(tmp.resolve("var/lib/nfs/v4recovery")).as("nfsd's client records, on the host").isDirectory();
    }

    @Test
    void aRunningNfsdWithNfsV42IsLeftAsItIs() throws Exception {
        Files.writeString(nfsd.resolve("threads"), "16\n");
        Files.writeString(nfsd.resolve("versions"), "+3 +4 +4.1 +4.2\n");
        Result r = startNfsd("8", "-3 +4 +4.2");
        assertThat(r.exit).as(r.output).isZero();
        assertThat(Files.readAllLines(calls)).as("neither mounted again nor restarted").isEmpty();
        assertThat(r.output).contains("nfsd already runs (+3 +4 +4.1 +4.2; 16 threads): left as it is");
    }

    @Test
    void aRunningNfsdWithoutNfsV42IsRefusedNamingWhatToDo() throws Exception {
        Files.writeString(nfsd.resolve("threads"), "8\n");
        Files.writeString(nfsd.resolve("versions"), "+3 +4 +4.1 -4.2\n");
        Result r = startNfsd("8", "-3 +4 +4.2");
        assertThat(r.exit).isEqualTo(1);
        assertThat(Files.readAllLines(calls)).isEmpty();
        assertThat(r.output).contains("nfsd already runs without NFSv4.2 (+3 +4 +4.1 -4.2): stop it (rpc.nfsd 0) or start it with -V 4.2");
    }

    @Test
    void aStartThatLeavesNfsdWithoutNfsV42OrThreadsFails() throws Exception {
        Result noFourTwo = startNfsd("8", "-3 +4 +4.1 -4.2");
        assertThat(noFourTwo.exit).isEqualTo(1);
        assertThat(noFourTwo.output).contains("rpc.nfsd did not start nfsd with NFSv4.2 (-3 +4 +4.1 -4.2; 8 threads)");

        Files.delete(nfsd.resolve("threads"));
        Result noThreads = startNfsd("0", "-3 +4 +4.1 +4.2");
        assertThat(noThreads.exit).isEqualTo(1);
        assertThat(noThreads.output).contains("rpc.nfsd did not start nfsd with NFSv4.2 (-3 +4 +4.1 +4.2; 0 threads)");
    }

    @Test
    void mountdsContainerMountsNfsdsFilesystemOnlyWhenMissingThenBecomesRpcMountd() throws Exception {
        tool("rpc.mountd", "echo \"rpc.mountd $*\" >> " + calls + "\n");
        Result first = sh(Rendered.container(POD, "rpc-mountd").getCommand().get(2), List.of());
        assertThat(first.exit).as(first.output).isZero();
        assertThat(Files.readAllLines(calls)).containsExactly("mount -t nfsd nfsd " + nfsd,
                "rpc.mountd --foreground -N 2 -N 3 --no-udp");

        Files.writeString(calls, "");
        Result again = sh(Rendered.container(POD, "rpc-mountd").getCommand().get(2), List.of());
        assertThat(again.exit).as(again.output).isZero();
        assertThat(Files.readAllLines(calls)).containsExactly("rpc.mountd --foreground -N 2 -N 3 --no-udp");
    }

    @Test
    void theLivenessProbeFailsExactlyWhenNoRpcMountdRuns() throws Exception {
        Path proc = tmp.resolve("proc");
        Files.createDirectories(proc.resolve("1"));
        Files.writeString(proc.resolve("1/comm"), "pause\n");
        Files.createDirectories(proc.resolve("23"));
        Files.writeString(proc.resolve("23/comm"), "java\n");
        Files.createDirectories(proc.resolve("self"));
        String probe = Rendered.container(POD, "rpc-mountd").getLivenessProbe().getExec().getCommand().get(2)
                .replace("/proc/", proc + "/");
        Result gone = sh(probe, List.of());
        assertThat(gone.exit).isEqualTo(1);
        assertThat(gone.output).contains("rpc.mountd does not run");

        Files.createDirectories(proc.resolve("412"));
        Files.writeString(proc.resolve("412/comm"), "rpc.mountd\n");
        assertThat(sh(probe, List.of()).exit).isZero();
    }

    private Result startNfsd(String threads, String versions) throws Exception {
        Container init = POD.getInitContainers().stream().filter(c -> c.getName().equals("nfsd")).findFirst().orElseThrow();
        assertThat(init.getCommand().get(2)).as("the script names nfsd's directory").contains("d=/proc/fs/nfsd\n");
        return sh(init.getCommand().get(2), List.of("RPC_NFSD_THREADS=" + threads, "RPC_NFSD_VERSIONS=" + versions));
    }

    /** The script with /proc/fs/nfsd moved into the temporary directory, the stand-ins first on PATH. */
    private Result sh(String script, List<String> env) throws Exception {
        String moved = script.replace("/proc/fs/nfsd", nfsd.toString()).replace("/var/lib/nfs", tmp.resolve("var/lib/nfs").toString());
        ProcessBuilder builder = new ProcessBuilder(List.of("/bin/sh", "-c", moved)).redirectErrorStream(true);
        builder.environment().put("PATH", bin + ":/usr/bin:/bin");
        for (String e : env) {
            builder.environment().put(e.substring(0, e.indexOf('=')), e.substring(e.indexOf('=') + 1));
        }
        Process p = builder.start();
        p.getOutputStream().close();
        if (!p.waitFor(30, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("the script did not end within 30 s:\n" + moved);
        }
        return new Result(p.exitValue(), new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8));
    }

    private void tool(String name, String body) throws IOException {
        Path tool = bin.resolve(name);
        Files.writeString(tool, "#!/bin/sh\nset -eu\n" + body);
        Files.setPosixFilePermissions(tool, PosixFilePermissions.fromString("rwxr-xr-x"));
    }

    private record Result(int exit, String output) {
    }
}
