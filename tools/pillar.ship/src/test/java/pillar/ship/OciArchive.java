package pillar.ship;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.DigestInputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveInputStream;
import org.apache.commons.compress.compressors.gzip.GzipCompressorInputStream;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;

/**
 * An OCI image read from an oci-archive file (a tar of an OCI image layout), as a registry or a
 * container runtime would see it: index, manifest, config, and each layer's files, every blob's
 * digest and size checked against what refers to it.
 */
final class OciArchive {
    private static final ObjectMapper JSON = new ObjectMapper();

    /** One file in a layer. */
    record Entry(String path, long size, int mode, long uid, boolean directory, boolean symlink, String link) {
    }

    /** One layer: its blob's digest and compressed size, and its files in order. */
    record Layer(String digest, long compressedSize, long uncompressedSize, List<Entry> entries,
            Map<String, String> etcTexts) {
    }

    final JsonNode index;
    final JsonNode manifest;
    final JsonNode config;
    final List<Layer> layers = new ArrayList<>();

    private OciArchive(JsonNode index, JsonNode manifest, JsonNode config) {
        this.index = index;
        this.manifest = manifest;
        this.config = config;
    }

    static OciArchive read(Path archive) throws IOException {
        Map<String, byte[]> small = new HashMap<>();
        Map<String, Long> sizes = new HashMap<>();
        forEachEntry(archive, (entry, in) -> {
            String name = normalize(entry.getName());
            sizes.put(name, entry.getSize());
            if (entry.isFile() && entry.getSize() < 1 << 20) {
                small.put(name, in.readAllBytes());
            }
        });
        JsonNode index = json(small, "index.json");
        check(index.path("manifests").size() == 1, "one manifest in index.json, got " + index.path("manifests").size());
        JsonNode manifestRef = index.path("manifests").get(0);
        JsonNode manifest = blob(small, manifestRef);
        JsonNode config = blob(small, manifest.path("config"));
        OciArchive image = new OciArchive(index, manifest, config);
        Map<String, JsonNode> layerRefs = new LinkedHashMap<>();
        manifest.path("layers").forEach(l -> layerRefs.put(blobPath(l), l));
        Map<String, Layer> read = new HashMap<>();
        forEachEntry(archive, (entry, in) -> {
            String name = normalize(entry.getName());
            JsonNode ref = layerRefs.get(name);
            if (ref != null) {
                read.put(name, readLayer(ref, entry.getSize(), in));
            }
        });
        for (String name : layerRefs.keySet()) {
            check(read.containsKey(name), "layer blob missing from the archive: " + name);
            image.layers.add(read.get(name));
        }
        check(sizes.containsKey("oci-layout"), "no oci-layout file");
        return image;
    }

    /** The image's files after applying every layer in order (whiteouts honoured). */
    Map<String, Entry> files() {
        Map<String, Entry> files = new HashMap<>();
        for (Layer layer : layers) {
            for (Entry e : layer.entries()) {
                String base = e.path().substring(e.path().lastIndexOf('/') + 1);
                String dir = e.path().contains("/") ? e.path().substring(0, e.path().lastIndexOf('/') + 1) : "";
                if (base.equals(".wh..wh..opq")) {
                    files.keySet().removeIf(p -> p.startsWith(dir) && !p.equals(dir.replaceAll("/$", "")));
                } else if (base.startsWith(".wh.")) {
                    String gone = dir + base.substring(4);
                    files.keySet().removeIf(p -> p.equals(gone) || p.startsWith(gone + "/"));
                } else {
                    files.put(e.path(), e);
                }
            }
        }
        return files;
    }

    /** The content of a small file under etc/ as the last layer that has it wrote it. */
    String text(String path) {
        for (Layer layer : layers.reversed()) {
            if (layer.etcTexts().containsKey(path)) {
                return layer.etcTexts().get(path);
            }
        }
        throw new AssertionError("no " + path + " in the image's layers");
    }

    /** Follows symbolic links (absolute or relative, e.g. merged /usr's bin -> usr/bin) to a real entry. */
    Entry resolve(Map<String, Entry> files, String path) {
        String current = normalize(path);
        for (int hops = 0; hops < 40; hops++) {
            String[] parts = current.split("/");
            String prefix = "";
            boolean redirected = false;
            for (int i = 0; i < parts.length && !redirected; i++) {
                String candidate = prefix.isEmpty() ? parts[i] : prefix + "/" + parts[i];
                Entry e = files.get(candidate);
                if (e != null && e.symlink()) {
                    String target = e.link().startsWith("/") ? e.link()
                            : (prefix.isEmpty() ? "" : prefix + "/") + e.link();
                    String rest = String.join("/", java.util.Arrays.copyOfRange(parts, i + 1, parts.length));
                    current = collapse(normalize(target + (rest.isEmpty() ? "" : "/" + rest)));
                    redirected = true;
                }
                prefix = candidate;
            }
            if (!redirected) {
                return files.get(current);
            }
        }
        throw new IllegalStateException("symbolic link loop at " + path);
    }

    private static String collapse(String path) {
        var out = new ArrayList<String>();
        for (String p : path.split("/")) {
            if (p.equals("..")) {
                if (!out.isEmpty()) {
                    out.removeLast();
                }
            } else if (!p.isEmpty() && !p.equals(".")) {
                out.add(p);
            }
        }
        return String.join("/", out);
    }

    private static Layer readLayer(JsonNode ref, long blobSize, InputStream in) throws IOException {
        MessageDigest sha = sha256();
        var counting = new DigestInputStream(in, sha);
        List<Entry> entries = new ArrayList<>();
        Map<String, String> texts = new HashMap<>();
        long total = 0;
        // every gzip member (GZIPInputStream may stop after the first one)
        var tar = new TarArchiveInputStream(GzipCompressorInputStream.builder().setInputStream(counting)
                .setDecompressConcatenated(true).get());
        for (TarArchiveEntry e = tar.getNextEntry(); e != null; e = tar.getNextEntry()) {
            entries.add(new Entry(normalize(e.getName()), e.getSize(), e.getMode(), e.getLongUserId(), e.isDirectory(),
                    e.isSymbolicLink(), e.getLinkName()));
            if (e.isFile() && e.getSize() < 8192 && normalize(e.getName()).startsWith("etc/")) {
                texts.put(normalize(e.getName()), new String(tar.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8));
            }
            total += e.getSize();
        }
        counting.transferTo(java.io.OutputStream.nullOutputStream());
        String digest = "sha256:" + HexFormat.of().formatHex(sha.digest());
        check(digest.equals(ref.path("digest").asString()), "layer digest " + digest + " != " + ref.path("digest"));
        check(blobSize == ref.path("size").asLong(), "layer size " + blobSize + " != " + ref.path("size"));
        return new Layer(digest, blobSize, total, entries, texts);
    }

    private static JsonNode blob(Map<String, byte[]> small, JsonNode ref) {
        byte[] bytes = small.get(blobPath(ref));
        check(bytes != null, "blob missing: " + ref);
        String digest = "sha256:" + HexFormat.of().formatHex(sha256().digest(bytes));
        check(digest.equals(ref.path("digest").asString()), "blob digest mismatch for " + ref);
        check(bytes.length == ref.path("size").asLong(), "blob size mismatch for " + ref);
        return JSON.readTree(bytes);
    }

    private static JsonNode json(Map<String, byte[]> small, String name) {
        check(small.containsKey(name), "no " + name);
        return JSON.readTree(small.get(name));
    }

    private static String blobPath(JsonNode ref) {
        return "blobs/" + ref.path("digest").asString().replace(':', '/');
    }

    static String normalize(String name) {
        String n = name;
        while (n.startsWith("./") || n.startsWith("/")) {
            n = n.startsWith("./") ? n.substring(2) : n.substring(1);
        }
        return n.endsWith("/") ? n.substring(0, n.length() - 1) : n;
    }

    private interface EntryVisitor {
        void visit(TarArchiveEntry entry, InputStream in) throws IOException;
    }

    private static void forEachEntry(Path archive, EntryVisitor visitor) throws IOException {
        try (var tar = new TarArchiveInputStream(Files.newInputStream(archive))) {
            for (TarArchiveEntry e = tar.getNextEntry(); e != null; e = tar.getNextEntry()) {
                visitor.visit(e, tar);
            }
        }
    }

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private static void check(boolean ok, String message) {
        if (!ok) {
            throw new UncheckedIOException(new IOException("bad OCI archive: " + message));
        }
    }
}
