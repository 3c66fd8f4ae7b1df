package pillar.chart;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.yaml.snakeyaml.DumperOptions;
import org.yaml.snakeyaml.Yaml;

/**
 * The PrometheusRule's rules as Prometheus itself reads them: {@code promtool check rules} accepts the
 * rendered spec, and {@code promtool test rules} ({@code alerts-test.yaml} beside this class) shows
 * every alert firing on the series that should fire it and staying quiet otherwise. promtool comes with
 * Debian's prometheus package, which dev/bundle-setup installs: this test fails, saying so, without it.
 */
class AlertRulesHostIT {
    private static final Path PROMTOOL = Path.of("/usr/bin/promtool");

    @TempDir
    Path dir;

    @Test
    void promtoolAcceptsTheRulesAndTheirTestsPass() throws Exception {
        assertThat(Files.isExecutable(PROMTOOL)).as("promtool (Debian's prometheus package) is needed: run dev/bundle-setup")
                .isTrue();
        DumperOptions options = new DumperOptions();
        options.setDefaultFlowStyle(DumperOptions.FlowStyle.BLOCK);
        Path rules = Files.writeString(dir.resolve("pillar-csi.rules.yaml"), new Yaml(options).dump(AlertRules.spec()));

        Result check = promtool("check", "rules", rules.toString());
        assertThat(check.exit()).as("promtool check rules: %s", check.output()).isZero();
        assertThat(check.output()).contains("SUCCESS: " + AlertRules.names().size() + " rules found");

        String tests;
        try (var in = AlertRulesHostIT.class.getResourceAsStream("alerts-test.yaml")) {
            tests = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        for (String alert : AlertRules.names()) {
            assertThat(tests).as("alerts-test.yaml makes %s fire at least once", alert)
                    .containsPattern("alertname: " + alert + "\\n\\s+exp_alerts:\\n\\s+- exp_labels");
        }
        Files.writeString(dir.resolve("alerts-test.yaml"), tests);
        Result test = promtool("test", "rules", dir.resolve("alerts-test.yaml").toString());
        assertThat(test.exit()).as("promtool test rules: %s", test.output()).isZero();
        assertThat(test.output()).contains("SUCCESS");
    }

    private record Result(int exit, String output) {
    }

    private Result promtool(String... args) throws IOException, InterruptedException {
        Process process = new ProcessBuilder(java.util.stream.Stream.concat(java.util.stream.Stream.of(PROMTOOL.toString()),
                java.util.Arrays.stream(args)).toList()).directory(dir.toFile()).redirectErrorStream(true).start();
        if (!process.waitFor(60, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new AssertionError("promtool " + List.of(args) + " did not end within 60 s");
        }
        return new Result(process.exitValue(), new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8));
    }
}
