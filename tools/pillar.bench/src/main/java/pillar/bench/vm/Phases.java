package pillar.bench.vm;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import pillar.bench.Report;
import pillar.bench.Table;
import pillar.bench.stats.Samples;
import pillar.bench.stats.Summary;

/** Each phase's times, pillar-csi's next to the bare commands', and how each side did it. */
final class Phases {
    private record Phase(String name, String pillar, String bare, Samples pillarTimes, Samples bareTimes) {
    }

    private final Map<String, Phase> phases = new LinkedHashMap<>();

    void declare(String name, String pillar, String bare) {
        phases.put(name, new Phase(name, pillar, bare, new Samples(), new Samples()));
    }

    void pillar(String name, long nanos) {
        phase(name).pillarTimes().add(nanos);
    }

    void bare(String name, long nanos) {
        phase(name).bareTimes().add(nanos);
    }

    private Phase phase(String name) {
        Phase phase = phases.get(name);
        if (phase == null) {
            throw new IllegalArgumentException("undeclared phase " + name);
        }
        return phase;
    }

    void report(Report report, double target) {
        Table table = new Table("phase", "pillar-csi ms (median)", "bare ms (median)", "ratio", "runs", "pillar-csi did",
                "bare commands");
        List<String> over = new ArrayList<>();
        for (Phase p : phases.values()) {
            if (p.pillarTimes().count() == 0) {
                continue; // not run (a quick run leaves the whole calls out)
            }
            Summary pillar = p.pillarTimes().summary();
            Summary bare = p.bareTimes().summary();
            double ratio = bare.p50() == 0 ? Double.NaN : (double) pillar.p50() / bare.p50();
            table.row(p.name(), Summary.millis(pillar.p50()), Summary.millis(bare.p50()), String.format(Locale.ROOT, "%.2f", ratio),
                    pillar.count(), p.pillar(), p.bare());
            if (!(ratio <= target)) {
                over.add(String.format(Locale.ROOT, "%s %.2f", p.name(), ratio));
            }
        }
        report.table("Each phase by pillar-csi and by the bare commands, interleaved in the same VM run", table);
        report.target("pillar-csi's time for each phase <= " + target + " x the bare commands'", over.isEmpty(),
                over.isEmpty() ? "all phases" : "over: " + String.join(", ", over));
        report.endTargets();
    }
}
