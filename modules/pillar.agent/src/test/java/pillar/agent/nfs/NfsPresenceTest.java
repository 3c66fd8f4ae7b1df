package pillar.agent.nfs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** nfsd serving NFSv4.2 and rpc.mountd running, read from a /proc laid out as the kernel's. */
class NfsPresenceTest {
    @TempDir
    Path proc;

    private void write(String path, String text) throws IOException {
        Files.createDirectories(proc.resolve(path).getParent());
        Files.writeString(proc.resolve(path), text);
    }

    @Test
    void nfsdWithFourTwoAndMountdServe() throws IOException {
        write("fs/nfsd/versions", "-3 +4 +4.1 +4.2\n");
        write("1/comm", "systemd\n");
        write("412/comm", "rpc.mountd\n");

        assertThat(NfsPresence.problem(proc)).isEmpty();
        assertThat(new KernelNfsServer(command -> {
            throw new AssertionError("no command");
        }, java.time.Duration.ofSeconds(1), proc.resolve("exports"), proc.resolve("etab"), proc).problem()).isEmpty();
    }

    @Test
    void eachMissingPartIsNamed() throws IOException {
        assertThat(NfsPresence.problem(proc)).hasValueSatisfying(p -> assertThat(p).contains("nfsd does not run").contains("versions"));

        write("fs/nfsd/versions", "+3 +4 +4.1 -4.2\n");
        assertThat(NfsPresence.problem(proc)).hasValueSatisfying(p -> assertThat(p).contains("does not serve NFSv4.2"));

        write("fs/nfsd/versions", "-3 +4 +4.1 +4.2\n");
        write("77/comm", "rpc.nfsd\n");
        write("self/comm", "rpc.mountd\n");
        assertThat(NfsPresence.problem(proc)).hasValueSatisfying(p -> assertThat(p).contains("rpc.mountd does not run"));
    }

    @Test
    void anAbsentServerSaysWhyAndRefusesEveryCall() {
        NfsServer absent = NfsServer.absent("no NFS here");

        assertThat(absent.problem()).contains("no NFS here");
        org.assertj.core.api.Assertions.assertThatThrownBy(absent::exports).isInstanceOf(NfsServerException.class).hasMessage("no NFS here");
    }
}
