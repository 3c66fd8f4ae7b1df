package pillar.bench.vm;

import java.util.Arrays;
import java.util.Locale;
import java.util.Map;

import pillar.agent.backend.Backends;
import pillar.agent.backend.VolumeBackend;
import pillar.agent.config.BackendConfig;
import pillar.agent.state.InstallationId;
import pillar.api.agent.v1.BackendKind;
import pillar.runtime.exec.SystemProcessRunner;
import pillar.api.value.ByteSize;
import pillar.api.value.VolumeId;
import pillar.bench.Report;
import pillar.bench.Table;

/**
 * What zeroing a linear LV on delete costs: the agent's linear backend deleting a volume (zeroing with
 * {@code blkdiscard --zeroout}, then {@code lvremove}) against a bare {@code lvremove -f} of an LV of
 * the same size, alternating, in the same volume group; medians, the ratio, and the difference per GiB.
 */
final class ZeroingCost {
    static final long SIZE = 512L << 20;

    private ZeroingCost() {
    }

    static void measure(Report report, String vg, int reps) {
        VolumeBackend linear = Backends.of(new BackendConfig("bench-linear", BackendKind.BACKEND_KIND_LVM_LINEAR, vg, ""),
                new SystemProcessRunner(), Backends.Host.system(), InstallationId.EMBEDDED);
        long[] bare = new long[reps];
        long[] pillar = new long[reps];
        for (int r = 0; r < reps; r++) {
            Bare.run("lvcreate", "-q", "-y", "--wipesignatures", "y", "--zero", "y", "-n", "zero-bare", "-L", SIZE + "b", vg);
            long start = System.nanoTime();
            Bare.run("lvremove", "-q", "-f", vg + "/zero-bare");
            bare[r] = System.nanoTime() - start;

            VolumeId id = VolumeId.of("pvc-zero-" + r);
            linear.create(id, ByteSize.of(SIZE), Map.of());
            start = System.nanoTime();
            linear.delete(id);
            pillar[r] = System.nanoTime() - start;
            System.out.printf(Locale.ROOT, "[vmbench] zeroing %d: bare lvremove %d ms, agent delete %d ms%n", r + 1, bare[r] / 1_000_000,
                    pillar[r] / 1_000_000);
        }
        long b = median(bare);
        long p = median(pillar);
        double gib = SIZE / (double) (1L << 30);
        report.table("Zeroing a linear LV on delete (" + (SIZE >> 20) + " MiB, loop device on the guest's tmpfs: no WRITE ZEROES,"
                + " so the kernel writes zero pages; " + reps + " alternating repetitions, medians)",
                new Table("step", "pillar-csi ms", "bare ms", "ratio", "zeroing ms per GiB", "pillar-csi", "bare")
                        .row("delete linear", ms(p), ms(b), String.format(Locale.ROOT, "%.1f", p / (double) b),
                                String.format(Locale.ROOT, "%.0f", (p - b) / 1e6 / gib),
                                "agent delete: lvs, blkdiscard --zeroout, lvremove", "lvremove -f"));
    }

    private static long median(long[] values) {
        long[] sorted = values.clone();
        Arrays.sort(sorted);
        return sorted[sorted.length / 2];
    }

    private static String ms(long nanos) {
        return Long.toString(Math.round(nanos / 1e6));
    }
}
