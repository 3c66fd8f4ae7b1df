package pillar.agent.configfs;

import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.function.Predicate;

import pillar.agent.configfs.ConfigfsTree.Kind;

/** Walks an nvmet tree through {@link ConfigfsTree}, on the fake and on the kernel alike. */
final class TreeWalk {
    private TreeWalk() {
    }

    /** Every entry under {@code dir} with attribute values and link targets, one sorted line each. */
    static String snapshot(ConfigfsTree tree, Path dir) throws IOException {
        StringBuilder out = new StringBuilder();
        snapshot(tree, dir, dir, out);
        return out.toString();
    }

    private static void snapshot(ConfigfsTree tree, Path top, Path dir, StringBuilder out) throws IOException {
        for (Path entry : sorted(tree.list(dir))) {
            String name = top.relativize(entry).toString();
            switch (tree.kind(entry)) {
                case DIRECTORY -> {
                    out.append(name).append("/\n");
                    snapshot(tree, top, entry, out);
                }
                case LINK -> out.append(name).append(" -> ").append(tree.readlink(entry)).append('\n');
                case ATTRIBUTE -> {
                    String value;
                    try {
                        value = tree.read(entry).replace("\n", "\\n");
                    } catch (AccessDeniedException e) {
                        value = "(write-only)";
                    }
                    out.append(name).append(" = ").append(value).append('\n');
                }
                case ABSENT -> out.append(name).append(" vanished\n");
            }
        }
    }

    /**
     * Removes, in the kernel's order, the subsystems, ports and hosts whose names {@code ours} accepts,
     * with everything in them; what others made stays. Returns what it could not remove.
     */
    static List<String> wipe(ConfigfsTree tree, Path nvmet, Predicate<String> ours) {
        List<String> problems = new ArrayList<>();
        List<Path> ports = names(tree, nvmet.resolve("ports"), ours, problems);
        List<Path> subsystems = names(tree, nvmet.resolve("subsystems"), ours, problems);
        for (Path port : ports) {
            for (Path link : entries(tree, port.resolve("subsystems"), problems)) {
                attempt(problems, () -> tree.unlink(link));
            }
        }
        for (Path subsystem : subsystems) {
            for (Path ns : entries(tree, subsystem.resolve("namespaces"), problems)) {
                attempt(problems, () -> tree.write(ns.resolve("enable"), "0"));
                attempt(problems, () -> tree.rmdir(ns));
            }
            for (Path link : entries(tree, subsystem.resolve("allowed_hosts"), problems)) {
                attempt(problems, () -> tree.unlink(link));
            }
            attempt(problems, () -> tree.rmdir(subsystem));
        }
        for (Path port : ports) {
            for (Path referral : entries(tree, port.resolve("referrals"), problems)) {
                attempt(problems, () -> tree.rmdir(referral));
            }
            for (Path group : entries(tree, port.resolve("ana_groups"), problems)) {
                if (!group.getFileName().toString().equals("1")) {
                    attempt(problems, () -> tree.rmdir(group));
                }
            }
            attempt(problems, () -> tree.rmdir(port));
        }
        for (Path host : names(tree, nvmet.resolve("hosts"), ours, problems)) {
            attempt(problems, () -> tree.rmdir(host));
        }
        return problems;
    }

    private static List<Path> names(ConfigfsTree tree, Path dir, Predicate<String> ours, List<String> problems) {
        return entries(tree, dir, problems).stream().filter(p -> ours.test(p.getFileName().toString())).toList();
    }

    private static List<Path> entries(ConfigfsTree tree, Path dir, List<String> problems) {
        try {
            return sorted(tree.list(dir));
        } catch (IOException e) {
            problems.add("list " + dir + ": " + e);
            return List.of();
        }
    }

    private static List<Path> sorted(List<Path> paths) {
        return paths.stream().sorted(Comparator.naturalOrder()).toList();
    }

    private interface Call {
        void run() throws IOException;
    }

    private static void attempt(List<String> problems, Call call) {
        try {
            call.run();
        } catch (IOException e) {
            problems.add(e.toString());
        }
    }

    static boolean isDirectory(ConfigfsTree tree, Path path) {
        return tree.kind(path) == Kind.DIRECTORY;
    }
}
