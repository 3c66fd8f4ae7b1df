package pillar.runtime.server;

import java.net.Socket;
import java.security.Principal;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import javax.net.ssl.SSLEngine;
import javax.net.ssl.X509ExtendedKeyManager;

/**
 * Presents the certificate of {@link CertificateFiles#current()} at each handshake. An alias names
 * the credentials it was chosen from ({@code <epoch>/<alias>}), so that a reload in the middle of a
 * handshake cannot pair one version's certificate with another's key.
 */
final class ReloadingKeyManager extends X509ExtendedKeyManager {
    private final CertificateFiles files;
    private final Map<Long, CertificateFiles.Loaded> recent = new ConcurrentHashMap<>();

    ReloadingKeyManager(CertificateFiles files) {
        this.files = files;
    }

    @Override
    public String chooseEngineServerAlias(String keyType, Principal[] issuers, SSLEngine engine) {
        CertificateFiles.Loaded loaded = remember();
        return named(loaded, loaded.keyManager().chooseEngineServerAlias(keyType, issuers, engine));
    }

    @Override
    public String chooseServerAlias(String keyType, Principal[] issuers, Socket socket) {
        CertificateFiles.Loaded loaded = remember();
        return named(loaded, loaded.keyManager().chooseServerAlias(keyType, issuers, socket));
    }

    @Override
    public String chooseEngineClientAlias(String[] keyTypes, Principal[] issuers, SSLEngine engine) {
        CertificateFiles.Loaded loaded = remember();
        return named(loaded, loaded.keyManager().chooseEngineClientAlias(keyTypes, issuers, engine));
    }

    @Override
    public String chooseClientAlias(String[] keyTypes, Principal[] issuers, Socket socket) {
        CertificateFiles.Loaded loaded = remember();
        return named(loaded, loaded.keyManager().chooseClientAlias(keyTypes, issuers, socket));
    }

    @Override
    public String[] getServerAliases(String keyType, Principal[] issuers) {
        CertificateFiles.Loaded loaded = remember();
        String[] aliases = loaded.keyManager().getServerAliases(keyType, issuers);
        return aliases == null ? null : Arrays.stream(aliases).map(a -> named(loaded, a)).toArray(String[]::new);
    }

    @Override
    public String[] getClientAliases(String keyType, Principal[] issuers) {
        CertificateFiles.Loaded loaded = remember();
        String[] aliases = loaded.keyManager().getClientAliases(keyType, issuers);
        return aliases == null ? null : Arrays.stream(aliases).map(a -> named(loaded, a)).toArray(String[]::new);
    }

    @Override
    public X509Certificate[] getCertificateChain(String alias) {
        CertificateFiles.Loaded loaded = loadedOf(alias);
        return loaded == null ? null : loaded.keyManager().getCertificateChain(aliasIn(alias));
    }

    @Override
    public PrivateKey getPrivateKey(String alias) {
        CertificateFiles.Loaded loaded = loadedOf(alias);
        return loaded == null ? null : loaded.keyManager().getPrivateKey(aliasIn(alias));
    }

    /** The current credentials, kept with the one before them for handshakes still using it. */
    private CertificateFiles.Loaded remember() {
        CertificateFiles.Loaded loaded = files.current();
        if (recent.putIfAbsent(loaded.epoch(), loaded) == null) {
            recent.keySet().removeIf(epoch -> epoch < loaded.epoch() - 1);
        }
        return loaded;
    }

    private static String named(CertificateFiles.Loaded loaded, String alias) {
        return alias == null ? null : loaded.epoch() + "/" + alias;
    }

    private CertificateFiles.Loaded loadedOf(String alias) {
        int slash = alias == null ? -1 : alias.indexOf('/');
        if (slash < 0) {
            return null;
        }
        try {
            return recent.get(Long.parseLong(alias.substring(0, slash)));
        } catch (NumberFormatException e) {
            return null;
        }
    }

    private static String aliasIn(String alias) {
        return alias.substring(alias.indexOf('/') + 1);
    }
}
