package pillar.agent.nfs;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import pillar.runtime.exec.Command;
import pillar.runtime.exec.CommandFailedException;
import pillar.runtime.exec.ProcessRunner;

/**
 * Whether nfsd can be made to require RPC-with-TLS on an export, asked of the two parts that must agree:
 * <ul>
 *   <li>the kernel: nfsd reads an export's {@code xprtsec} from 6.4 on ("NFSD: Handle new xprtsec= export
 *       option"); an older one ignores the field it does not know and admits plaintext, so it is refused;</li>
 *   <li>the NFS tools: an exportfs that does not know {@code xprtsec} (nfs-utils 2.6.2, Debian 12's) refuses
 *       the option as an unknown keyword, and its rpc.mountd, of the same package, would not pass it to the
 *       kernel. Asked by exporting a path that cannot exist ({@link #PROBE_PATH}, below /proc): a tool that knows
 *       the option fails on the path instead. Nothing is exported either way.</li>
 * </ul>
 * Whether {@code tlshd} runs with a server certificate is the host's set-up (docs/nfs.md), not seen here. An answer
 * is {@link Verdict#settled} when neither part can change under a running agent; "cannot tell" (a failed read, an
 * exportfs that timed out or answered otherwise) is not, and is asked again next time.
 */
final class NfsTlsSupport {
    /** A path nobody can create: exportfs fails on it after reading its options. */
    static final String PROBE_PATH = "/proc/pillar-csi-xprtsec-probe";
    private static final Pattern RELEASE = Pattern.compile("(\\d+)\\.(\\d+).*");
    /** How every answer that may change begins. */
    static final String CANNOT_TELL = "cannot tell";

    private NfsTlsSupport() {
    }

    /** What was found: why exports cannot require RPC-with-TLS (empty when they can), and whether that holds for good. */
    record Verdict(Optional<String> problem, boolean settled) {
    }

    /** Why exports cannot require RPC-with-TLS here; empty when they can. */
    static Verdict ask(Path procRoot, ProcessRunner runner, Duration timeout) {
        Optional<String> kernel = kernelProblem(procRoot);
        Optional<String> problem = kernel.isPresent() ? kernel : toolsProblem(runner, timeout);
        return new Verdict(problem, problem.map(p -> !p.startsWith(CANNOT_TELL)).orElse(true));
    }

    static Optional<String> kernelProblem(Path procRoot) {
        String release;
        try {
            release = Files.readString(procRoot.resolve("sys/kernel/osrelease")).strip();
        } catch (IOException e) {
            return Optional.of(CANNOT_TELL + " whether nfsd has RPC-with-TLS: the kernel's release is unreadable (" + e.getMessage() + ")");
        }
        Matcher m = RELEASE.matcher(release);
        if (!m.matches()) {
            return Optional.of(CANNOT_TELL + " whether nfsd has RPC-with-TLS: the kernel release is '"
                    + release.replaceAll("[^\\x20-\\x7e]", "?") + "'");
        }
        int major = Integer.parseInt(m.group(1));
        int minor = Integer.parseInt(m.group(2));
        return major > 6 || (major == 6 && minor >= 4) ? Optional.empty()
                : Optional.of("kernel " + release + " has no RPC-with-TLS in nfsd (6.4 or later reads an export's xprtsec)");
    }

    static Optional<String> toolsProblem(ProcessRunner runner, Duration timeout) {
        List<String> argv = List.of("exportfs", "-i", "-o", "rw,sync,xprtsec=tls", "127.0.0.1:" + PROBE_PATH);
        String answer;
        try {
            runner.run(new Command(argv, timeout));
            return Optional.of("exportfs exported " + PROBE_PATH + ", which cannot exist; not trusting it with xprtsec");
        } catch (CommandFailedException e) {
            answer = e.stderr().isBlank() ? e.getMessage() : e.stderr();
        }
        if (answer.contains("unknown keyword")) {
            return Optional.of("this host's exportfs does not know the xprtsec option (nfs-utils too old: Debian 12's 2.6.2"
                    + " has none, Debian 13's 2.8.3 has it)");
        }
        if (answer.contains("Failed to stat " + PROBE_PATH)) {
            return Optional.empty();
        }
        return Optional.of(CANNOT_TELL + " whether exportfs knows xprtsec: it answered '"
                + answer.strip().replaceAll("[^\\x20-\\x7e]", "?") + "'");
    }
}
