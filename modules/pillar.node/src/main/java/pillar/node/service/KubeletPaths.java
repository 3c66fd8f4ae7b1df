package pillar.node.service;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Pattern;
import pillar.runtime.server.CsiException;

/**
 * The rule for staging and target paths: absolute, normalized (no {@code .} or {@code ..} segments,
 * no doubled or trailing '/'), made of a conservative alphabet, strictly below the kubelet
 * directory, and (checked when the path is used) not reaching out of it through a symbolic link.
 * Kubelet's own paths ({@code .../plugins/kubernetes.io/csi/pillar.csi.io/<hash>/globalmount},
 * {@code .../pods/<uid>/volumes/kubernetes.io~csi/<pv>/mount}) all pass.
 */
public final class KubeletPaths {
    private static final int MAX_LENGTH = 4096;
    private static final Pattern ALPHABET = Pattern.compile("[A-Za-z0-9._~:@+=,%/-]+");

    private final Path kubeletDir;

    public KubeletPaths(Path kubeletDir) {
        this.kubeletDir = kubeletDir.toAbsolutePath().normalize();
    }

    public Path kubeletDir() {
        return kubeletDir;
    }

    /** The validated path of a request field; INVALID_ARGUMENT names the field and the rule. */
    public Path check(String field, String value) {
        if (value == null || value.isEmpty()) {
            throw CsiException.invalid(field + " is required");
        }
        if (value.length() > MAX_LENGTH) {
            throw CsiException.invalid(field + " must be at most " + MAX_LENGTH + " characters");
        }
        if (!ALPHABET.matcher(value).matches()) {
            throw CsiException.invalid(field + " may hold only letters, digits, '/' and ._~:@+=,%- (no spaces or control characters)");
        }
        if (!value.startsWith("/")) {
            throw CsiException.invalid(field + " must be an absolute path");
        }
        for (String segment : value.substring(1).split("/", -1)) {
            if (segment.isEmpty() || segment.equals(".") || segment.equals("..")) {
                throw CsiException.invalid(field + " must be normalized: no '.', '..', '//' or trailing '/'");
            }
        }
        Path path = Path.of(value);
        if (!path.startsWith(kubeletDir) || path.equals(kubeletDir)) {
            throw CsiException.invalid(field + " must be below the kubelet directory " + kubeletDir);
        }
        return path;
    }

    /**
     * {@link #checkNoEscape} when the path or its parent exists; a path whose parent is gone too has
     * nothing left to act on (an unpublish or unstage that already happened).
     */
    public boolean checkNoEscapeIfPresent(String field, Path path) {
        if (!Files.exists(path, java.nio.file.LinkOption.NOFOLLOW_LINKS) && !Files.exists(path.getParent())) {
            return false;
        }
        checkNoEscape(field, path);
        return true;
    }

    /**
     * Fails with INVALID_ARGUMENT when the existing part of {@code path} (the path itself, or else its
     * parent) resolves, through symbolic links, to somewhere outside the kubelet directory.
     */
    public void checkNoEscape(String field, Path path) {
        Path existing = Files.exists(path, java.nio.file.LinkOption.NOFOLLOW_LINKS) ? path : path.getParent();
        try {
            Path real = existing.toRealPath();
            Path realKubelet = kubeletDir.toRealPath();
            if (!real.startsWith(realKubelet)) {
                throw CsiException.invalid(field + " resolves through a symbolic link to outside the kubelet directory");
            }
        } catch (IOException e) {
            throw CsiException.precondition(field + ": cannot resolve " + existing + " (" + e.getMessage()
                    + "); the CO creates the parent directory first");
        }
    }
}
