import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.xml.parsers.DocumentBuilderFactory;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.w3c.dom.NodeList;

/**
 * What dev/kernel-it reads and prints besides booting the VM: the reactor's code modules, the merged
 * test class path, the JUnit console launcher's version and the run's summary. A single-file source
 * program of the plain JDK ({@code java dev/lib/KernelTier.java COMMAND ...}): it runs before anything
 * is built, on a fresh machine with nothing but a JDK. Output goes to stdout, one item a line; warnings
 * to stderr. Exit status 0, or 2 with a message on stderr when an input is missing or unreadable.
 *
 * <pre>
 *   modules POM                       the code modules: every &lt;module&gt; of POM (profiles too), in order,
 *                                     whose directory (relative to POM's) has src/main/java or src/test/java
 *   classpath ROOT FILE...            the entries of Maven's recorded class paths (':'-separated) merged:
 *                                     empty entries, JUnit's own jars, io/pillarcsi jars and paths under
 *                                     ROOT left out; one version per groupId/artifactId directory of the
 *                                     local repository, the first wins (a warning for another version)
 *   junit-platform POM                the console launcher's version for POM's version.junit (5.x.y ships
 *                                     platform 1.x.y; any other version is the platform's own)
 *   summary REPORT                    the legacy JUnit XML report summarised: first line the suite's counts,
 *                                     then each test case with its time, each distinct failure once (at
 *                                     most 15), last line "kernel: N passed, M failed, K skipped"
 *   progress EVENTS                   what a run that never wrote its report got through, from the launcher's
 *                                     open-test-reporting event stream (written as it goes, so it survives a
 *                                     VM stopped at its deadline): each class that finished with its counts
 *                                     and time, then the test (or class) still running and when it started
 *                                     (counted as failed), last line "kernel: N passed, M failed, K skipped"
 * </pre>
 */
public final class KernelTier {
    /** Jars the console launcher brings itself, and the project's own artifacts. */
    static final List<String> LEFT_OUT = List.of("/org/junit/", "/org/opentest4j/", "/org/apiguardian/", "/io/pillarcsi/");
    static final int MAX_FAILURES = 15;
    static final int MAX_MESSAGE = 700;

    public static void main(String[] args) {
        try {
            if (args.length < 2) throw new Usage();
            List<String> rest = List.of(args).subList(1, args.length);
            List<String> lines = switch (args[0]) {
                case "modules" -> one(rest, r -> modules(Path.of(r)));
                case "classpath" -> {
                    if (rest.size() < 2) throw new Usage();
                    List<String> entries = new ArrayList<>();
                    for (String f : rest.subList(1, rest.size())) entries.addAll(List.of(Files.readString(Path.of(f)).strip().split(":")));
                    yield classpath(rest.get(0), entries, System.err::println);
                }
                case "junit-platform" -> one(rest, r -> List.of(junitPlatform(Path.of(r))));
                case "summary" -> one(rest, r -> summary(Path.of(r)));
                case "progress" -> one(rest, r -> progress(Path.of(r)));
                default -> throw new Usage();
            };
            lines.forEach(System.out::println);
        } catch (Usage e) {
            System.err.println("usage: java dev/lib/KernelTier.java modules POM | classpath ROOT FILE... | junit-platform POM | summary REPORT | progress EVENTS");
            System.exit(2);
        } catch (Exception e) {
            System.err.println("[kernel-it] ERROR: " + e.getMessage());
            System.exit(2);
        }
    }

    static final class Usage extends RuntimeException {}

    interface Command { List<String> run(String argument) throws Exception; }

    static List<String> one(List<String> rest, Command command) throws Exception {
        if (rest.size() != 1) throw new Usage();
        return command.run(rest.get(0));
    }

    static Document parse(Path xml) throws Exception {
        if (!Files.isRegularFile(xml)) throw new IOException(xml + ": no such file");
        var factory = DocumentBuilderFactory.newInstance();
        factory.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
        var builder = factory.newDocumentBuilder();
        builder.setErrorHandler(new org.xml.sax.helpers.DefaultHandler() { // silent: the exception says it
            @Override public void fatalError(org.xml.sax.SAXParseException e) throws org.xml.sax.SAXException { throw e; }
        });
        try {
            return builder.parse(xml.toFile());
        } catch (org.xml.sax.SAXException e) {
            throw new IOException(xml + ": not well-formed XML: " + e.getMessage(), e);
        }
    }

    /** The code modules of a reactor pom, relative to its directory, in the pom's order, once each. */
    static List<String> modules(Path pom) throws Exception {
        Path dir = pom.toAbsolutePath().getParent();
        Set<String> modules = new LinkedHashSet<>();
        NodeList found = parse(pom).getElementsByTagName("module");
        for (int i = 0; i < found.getLength(); i++) {
            String m = found.item(i).getTextContent().strip();
            if (!m.isEmpty() && (Files.isDirectory(dir.resolve(m).resolve("src/main/java"))
                    || Files.isDirectory(dir.resolve(m).resolve("src/test/java")))) {
                modules.add(m);
            }
        }
        return List.copyOf(modules);
    }

    /**
     * Merges class path entries: the first version of each artifact (its jar's grandparent directory,
     * .../groupId/artifactId) wins; another version is reported once each time it appears.
     */
    static List<String> classpath(String root, List<String> entries, java.util.function.Consumer<String> warn) {
        String own = root.endsWith("/") ? root : root + "/";
        Map<String, String> kept = new LinkedHashMap<>();
        for (String entry : entries) {
            if (entry.isEmpty() || entry.startsWith(own) || LEFT_OUT.stream().anyMatch(entry::contains)) continue;
            String key = artifact(entry);
            String first = kept.putIfAbsent(key, entry);
            if (first != null && !first.equals(entry)) {
                warn.accept("[kernel-it] warning: two versions of " + key + ": using " + first);
            }
        }
        return List.copyOf(kept.values());
    }

    /** A path without its last two components (version directory and jar), or the path when it has fewer. */
    static String artifact(String path) {
        int jar = path.lastIndexOf('/');
        int version = jar > 0 ? path.lastIndexOf('/', jar - 1) : -1;
        return version >= 0 ? path.substring(0, version) : path;
    }

    static String junitPlatform(Path pom) throws Exception {
        NodeList found = parse(pom).getElementsByTagName("version.junit");
        String junit = found.getLength() == 0 ? "" : found.item(0).getTextContent().strip();
        if (junit.isEmpty()) throw new IOException("cannot read version.junit from " + pom);
        Matcher five = Pattern.compile("5\\.([0-9]+\\.[0-9]+.*)").matcher(junit);
        return five.matches() ? "1." + five.group(1) : junit;
    }

    static List<String> summary(Path report) throws Exception {
        Document doc = parse(report);
        Element suite = doc.getDocumentElement();
        if (!suite.getTagName().equals("testsuite")) {
            NodeList suites = doc.getElementsByTagName("testsuite");
            if (suites.getLength() == 0) throw new IOException(report + " has no <testsuite>");
            suite = (Element) suites.item(0);
        }
        long tests = count(suite, "tests"), skipped = count(suite, "skipped"),
                failures = count(suite, "failures"), errors = count(suite, "errors");
        List<String> lines = new ArrayList<>();
        lines.add("tests=\"%d\" skipped=\"%d\" failures=\"%d\" errors=\"%d\"".formatted(tests, skipped, failures, errors));
        // each distinct failure once, with how many tests it hit and the first of them: a failure of a
        // class's clean-up is reported on every test of the class, and must not hide a test's own failure
        Map<String, Integer> count = new LinkedHashMap<>();
        Map<String, String> first = new LinkedHashMap<>();
        NodeList cases = doc.getElementsByTagName("testcase");
        for (int i = 0; i < cases.getLength(); i++) {
            Element c = (Element) cases.item(i);
            lines.add("  %s.%s (%s s)".formatted(c.getAttribute("classname"), c.getAttribute("name"), c.getAttribute("time")));
            for (Node n = c.getFirstChild(); n != null; n = n.getNextSibling()) {
                if (n instanceof Element e && (e.getTagName().equals("failure") || e.getTagName().equals("error"))) {
                    String msg = e.hasAttribute("message") ? e.getAttribute("message").replaceAll("[\r\n]", " ") : "(no message)";
                    if (msg.length() > MAX_MESSAGE) msg = msg.substring(0, MAX_MESSAGE) + "...";
                    first.putIfAbsent(msg, c.getAttribute("name"));
                    count.merge(msg, 1, Integer::sum);
                }
            }
        }
        int shown = 0;
        for (var e : count.entrySet()) {
            if (++shown > MAX_FAILURES) break;
            lines.add("  | failed in %d test(s), first %s:".formatted(e.getValue(), first.get(e.getKey())));
            lines.add("  |   " + e.getKey());
        }
        if (count.size() > MAX_FAILURES) lines.add("  | ... and %d more distinct failures (see the report)".formatted(count.size() - MAX_FAILURES));
        lines.add("kernel: %d passed, %d failed, %d skipped".formatted(tests - skipped - failures - errors, failures + errors, skipped));
        return lines;
    }

    static long count(Element suite, String attribute) {
        String v = suite.getAttribute(attribute).strip();
        return v.matches("[0-9]+") ? Long.parseLong(v) : 0;
    }

    private static final Pattern STARTED = Pattern.compile(
            "<e:started id=\"(\\d+)\" name=\"([^\"]*)\"(?: parentId=\"(\\d+)\")? time=\"([^\"]+)\">.*?<junit:type>([A-Z_]+)</junit:type>");
    private static final Pattern FINISHED = Pattern.compile(
            "<e:finished id=\"(\\d+)\" time=\"([^\"]+)\"><result status=\"([A-Z_]+)\"");

    /** One test or container of the event stream. */
    record Event(String name, String parent, String type, java.time.Instant started, String[] end) {
        boolean finished() { return end[0] != null; }
        String status() { return end[0]; }
    }

    static List<String> progress(Path events) throws Exception {
        if (!Files.isRegularFile(events)) throw new IOException(events + ": no such file");
        String text = Files.readString(events);
        Map<String, Event> byId = new LinkedHashMap<>();
        Matcher m = STARTED.matcher(text);
        while (m.find()) {
            byId.put(m.group(1), new Event(unescape(m.group(2)), m.group(3), m.group(5), java.time.Instant.parse(m.group(4)), new String[2]));
        }
        m = FINISHED.matcher(text);
        while (m.find()) {
            Event e = byId.get(m.group(1));
            if (e == null) continue;
            e.end()[0] = m.group(3);
            e.end()[1] = m.group(2);
        }
        if (byId.isEmpty()) throw new IOException(events + " has no test events: the launcher did not get to run a test");
        List<String> lines = new ArrayList<>();
        long passed = 0, failed = 0, skipped = 0;
        List<String> running = new ArrayList<>();
        for (var entry : byId.entrySet()) {
            Event c = entry.getValue();
            boolean isClass = c.type().equals("CONTAINER") && c.parent() != null && byId.containsKey(c.parent())
                    && byId.get(c.parent()).parent() == null;
            if (!isClass) continue;
            long p = 0, f = 0, s = 0;
            boolean testRunning = false;
            for (var t : byId.entrySet()) {
                Event test = t.getValue();
                if (!test.type().equals("TEST") || !under(byId, test, entry.getKey())) continue;
                if (!test.finished()) {
                    testRunning = true;
                    running.add("  running when the run stopped: %s#%s (started %s)".formatted(c.name(), test.name(), clock(test.started())));
                } else if (test.status().equals("SUCCESSFUL")) p++;
                else if (test.status().equals("SKIPPED") || test.status().equals("ABORTED")) s++;
                else f++;
            }
            if (c.finished()) {
                long seconds = java.time.Duration.between(c.started(), java.time.Instant.parse(c.end()[1])).toSeconds();
                String classFailed = c.status().equals("SUCCESSFUL") || c.status().equals("SKIPPED") ? "" : " (the class itself " + c.status() + ")";
                if (!classFailed.isEmpty() && f == 0) f++;
                lines.add("  %s: %d passed, %d failed, %d skipped in %d s%s".formatted(c.name(), p, f, s, seconds, classFailed));
            } else if (!testRunning) {
                running.add("  running when the run stopped: %s, in its set-up or clean-up (started %s)".formatted(c.name(), clock(c.started())));
            }
            passed += p;
            failed += f;
            skipped += s;
        }
        lines.addAll(running);
        failed += running.size();
        lines.add("kernel: %d passed, %d failed, %d skipped".formatted(passed, failed, skipped));
        return lines;
    }

    static String clock(java.time.Instant at) {
        return java.time.format.DateTimeFormatter.ofPattern("HH:mm:ss 'UTC'").withZone(java.time.ZoneOffset.UTC).format(at);
    }

    static boolean under(Map<String, Event> byId, Event test, String classId) {
        for (String p = test.parent(); p != null; p = byId.containsKey(p) ? byId.get(p).parent() : null) {
            if (p.equals(classId)) return true;
        }
        return false;
    }

    static String unescape(String xml) {
        return xml.replace("&lt;", "<").replace("&gt;", ">").replace("&quot;", "\"").replace("&apos;", "'").replace("&amp;", "&");
    }
}
