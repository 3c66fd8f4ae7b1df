package pillar.agent.configfs;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.List;
import java.util.stream.Stream;

/**
 * {@link ConfigfsTree} on the mounted configfs, through java.nio. {@link #rmdir} and {@link #unlink}
 * are both {@link Files#delete}, which chooses the system call by what is at the path.
 */
final class KernelConfigfsTree implements ConfigfsTree {

    @Override
    public Kind kind(Path path) {
        BasicFileAttributes attributes;
        try {
            attributes = Files.readAttributes(path, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        } catch (IOException e) {
            return Kind.ABSENT;
        }
        if (attributes.isSymbolicLink()) {
            return Kind.LINK;
        }
        return attributes.isDirectory() ? Kind.DIRECTORY : Kind.ATTRIBUTE;
    }

    @Override
    public String read(Path attribute) throws IOException {
        return Files.readString(attribute);
    }

    @Override
    public void write(Path attribute, String value) throws IOException {
        // no CREATE: a missing attribute is an error, not a new file
        Files.writeString(attribute, value, StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING);
    }

    @Override
    public void mkdir(Path dir) throws IOException {
        Files.createDirectory(dir);
    }

    @Override
    public void rmdir(Path dir) throws IOException {
        Files.delete(dir);
    }

    @Override
    public void symlink(Path link, Path target) throws IOException {
        Files.createSymbolicLink(link, target);
    }

    @Override
    public Path readlink(Path link) throws IOException {
        return Files.readSymbolicLink(link);
    }

    @Override
    public void unlink(Path link) throws IOException {
        Files.delete(link);
    }

    /** The file system type java.nio reads from the mount table for the mount that holds {@code path}. */
    @Override
    public boolean isConfigfs(Path path) {
        try {
            return Files.getFileStore(path).type().equals("configfs");
        } catch (IOException e) {
            return false;
        }
    }

    @Override
    public List<Path> list(Path dir) throws IOException {
        try (Stream<Path> entries = Files.list(dir)) {
            return entries.toList();
        }
    }
}
