package pillar.agent.service;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A directory laid out as the kubelet mounts a Secret (cert-manager's certificate): each file is a
 * symlink {@code tls.crt -> ..data/tls.crt}, {@code ..data} a symlink to a timestamped directory.
 * An update writes a new directory and renames a new {@code ..data} link over the old one, so a
 * reader sees the old files or the new ones, never a mix.
 */
final class SecretVolume {
    static final String CERT = "tls.crt";
    static final String KEY = "tls.key";
    static final String CA = "ca.crt";

    private final Path dir;
    private final AtomicInteger version = new AtomicInteger();

    SecretVolume(Path dir) throws IOException {
        this.dir = Files.createDirectories(dir);
    }

    Path cert() {
        return dir.resolve(CERT);
    }

    Path key() {
        return dir.resolve(KEY);
    }

    Path ca() {
        return dir.resolve(CA);
    }

    /** Publishes these files (name to the file whose content it gets) as the kubelet's atomic writer does. */
    void publish(Map<String, Path> files) throws IOException {
        Path data = dir.resolve("..2026_12_02_" + version.incrementAndGet());
        Files.createDirectory(data);
        for (Map.Entry<String, Path> file : files.entrySet()) {
            Files.copy(file.getValue(), data.resolve(file.getKey()));
            Path link = dir.resolve(file.getKey());
            if (!Files.isSymbolicLink(link)) {
                Files.createSymbolicLink(link, Path.of("..data", file.getKey()));
            }
        }
        Path next = dir.resolve("..data_tmp");
        Files.createSymbolicLink(next, data.getFileName());
        Path previous = Files.isSymbolicLink(dir.resolve("..data")) ? dir.resolve(Files.readSymbolicLink(dir.resolve("..data"))) : null;
        Files.move(next, dir.resolve("..data"), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        if (previous != null) {
            try (var old = Files.list(previous)) {
                for (Path file : old.toList()) {
                    Files.delete(file);
                }
            }
            Files.delete(previous);
        }
    }

    /** Publishes a certificate, its key and a CA bundle. */
    void publish(Path cert, Path key, Path ca) throws IOException {
        publish(Map.of(CERT, cert, KEY, key, CA, ca));
    }
}
