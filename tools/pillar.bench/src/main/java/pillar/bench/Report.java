package pillar.bench;

import java.io.PrintStream;

/**
 * What a benchmark run reports, in Markdown: headings, notes, tables and target verdicts. Each part
 * is printed as soon as it is known (a long run shows progress) and kept for the file.
 */
public final class Report {
    private final StringBuilder markdown = new StringBuilder();
    private final PrintStream out;

    public Report(PrintStream out) {
        this.out = out;
    }

    public void heading(String title) {
        emit("\n### " + title + "\n\n");
    }

    public void text(String text) {
        emit(text + "\n\n");
    }

    public void table(String caption, Table table) {
        emit("**" + caption + "**\n\n" + table.markdown() + "\n");
    }

    /** A target with its verdict and the figure it was judged on. */
    public void target(String target, boolean met, String figure) {
        emit("- target " + target + ": **" + (met ? "met" : "MISSED") + "** (" + figure + ")\n");
    }

    /** Ends a list of targets. */
    public void endTargets() {
        emit("\n");
    }

    public String markdown() {
        return markdown.toString();
    }

    private void emit(String text) {
        markdown.append(text);
        out.print(text);
        out.flush();
    }
}
