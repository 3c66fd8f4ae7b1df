package pillar.node.mount;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import pillar.api.context.PublishContext;
import pillar.api.value.InvalidValueException;

/** The NFS export's validation and the exact source and data strings that reach mount(2). */
class NfsExportTest {
    static Map<String, String> context(String server, String path, String client) {
        Map<String, String> c = new HashMap<>();
        c.put(PublishContext.PROTOCOL, PublishContext.PROTOCOL_NFS);
        c.put(PublishContext.NFS_SERVER, server);
        c.put(PublishContext.NFS_EXPORT, path);
        c.put(PublishContext.NFS_CLIENT_ADDRESS, client);
        return c;
    }

    @Test
    void ipv4SourceAndHardMountOptions() {
        NfsExport e = NfsExport.fromPublishContext(context("10.77.0.1", "/tank/pillar/pvc-1", "10.77.1.2"));
        assertThat(e.source()).isEqualTo("10.77.0.1:/tank/pillar/pvc-1");
        assertThat(e.data()).isEqualTo("vers=4.2,hard,timeo=600,retrans=2,sec=sys,addr=10.77.0.1,clientaddr=10.77.1.2");
        assertThat(e.describe()).isEqualTo("nfs4 10.77.0.1:/tank/pillar/pvc-1");
    }

    @Test
    void ipv6ServerIsBracketedInTheSourceOnly() {
        NfsExport e = new NfsExport("fd00::1", "/tank/v1", "fd00::2");
        assertThat(e.source()).isEqualTo("[fd00::1]:/tank/v1");
        assertThat(e.data()).endsWith(",addr=fd00::1,clientaddr=fd00::2");
    }

    @ParameterizedTest
    @ValueSource(strings = {"nfs.example.com", "localhost", "10.0.0.256", "fe80::1%eth0", "10.0.0.1,soft", "[fd00::1]", " 10.0.0.1"})
    void serverAndClientMustBeIpLiterals(String address) {
        assertThatThrownBy(() -> new NfsExport(address, "/tank/v1", "10.0.0.2"))
                .isInstanceOf(InvalidValueException.class).hasMessageContaining(PublishContext.NFS_SERVER);
        assertThatThrownBy(() -> new NfsExport("10.0.0.1", "/tank/v1", address))
                .isInstanceOf(InvalidValueException.class).hasMessageContaining(PublishContext.NFS_CLIENT_ADDRESS);
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "/", "tank/v1", "/tank/../etc", "/tank/./v1", "/tank//v1", "/tank/v1/", "/tank/v1,soft",
            "/tank/v1 x", "/tank:v1", "/tank/v1=1", "/tank/\nv1", "/tank/\u00e9"})
    void exportPathMustBeAbsoluteNormalizedAndFreeOfSeparators(String path) {
        assertThatThrownBy(() -> new NfsExport("10.0.0.1", path, "10.0.0.2"))
                .isInstanceOf(InvalidValueException.class).hasMessageContaining(PublishContext.NFS_EXPORT);
    }

    @Test
    void aPathOfDotsOnlyInANameIsFineButALongPathIsNot() {
        assertThat(new NfsExport("10.0.0.1", "/tank/v.1/..a", "10.0.0.2").path()).isEqualTo("/tank/v.1/..a");
        String tooLong = "/" + "a".repeat(200) + ("/" + "b".repeat(200)).repeat(5);
        assertThatThrownBy(() -> new NfsExport("10.0.0.1", tooLong, "10.0.0.2")).isInstanceOf(InvalidValueException.class);
    }

    @Test
    void everyKeyIsRequired() {
        for (String key : List.of(PublishContext.NFS_SERVER, PublishContext.NFS_EXPORT, PublishContext.NFS_CLIENT_ADDRESS)) {
            Map<String, String> c = context("10.0.0.1", "/tank/v1", "10.0.0.2");
            c.remove(key);
            assertThatThrownBy(() -> NfsExport.fromPublishContext(c)).hasMessageContaining(key).hasMessageContaining("required");
        }
    }

    @Test
    void matchesOnlyThisExportMountedByThisClient() {
        NfsExport e = new NfsExport("fd00::1", "/tank/v1", "fd00:0:0::2");
        String sb = "rw,vers=4.2,hard,proto=tcp6,timeo=600,retrans=2,sec=sys,clientaddr=fd00::2,local_lock=none,addr=fd00::1";
        assertThat(e.matches(entry("nfs4", "[fd00::1]:/tank/v1", sb))).isTrue();
        assertThat(e.matches(entry("nfs", "[fd00::1]:/tank/v1", sb))).isFalse();
        assertThat(e.matches(entry("nfs4", "[fd00::1]:/tank", sb))).isFalse();
        assertThat(e.matches(entry("nfs4", "[fd00::1]:/tank/v1", sb.replace("clientaddr=fd00::2", "clientaddr=fd00::3")))).isFalse();
        assertThat(e.matches(entry("nfs4", "[fd00::1]:/tank/v1", sb.replace(",addr=fd00::1", "")))).isFalse();
    }

    /** Over TLS: xprtsec=tls reaches mount(2), and only a mount the kernel lists with it is this export. */
    @Test
    void overTlsTheDataAsksForItAndOnlyATlsMountMatches() {
        Map<String, String> c = context("10.77.0.1", "/tank/pillar/pvc-1", "10.77.1.2");
        c.put(PublishContext.TLS, PublishContext.TLS_13);
        NfsExport e = NfsExport.fromPublishContext(c);

        assertThat(e.tls()).isTrue();
        assertThat(e.data()).isEqualTo("vers=4.2,hard,timeo=600,retrans=2,sec=sys,xprtsec=tls,addr=10.77.0.1,clientaddr=10.77.1.2");
        assertThat(e.describe()).isEqualTo("nfs4 10.77.0.1:/tank/pillar/pvc-1 over TLS");
        // as the 6.12 VM listed a TLS mount in /proc/self/mountinfo
        String sb = "rw,vers=4.2,rsize=262144,wsize=262144,namlen=255,hard,proto=tcp,timeo=600,retrans=2,sec=sys,xprtsec=tls,"
                + "clientaddr=10.77.1.2,local_lock=none,addr=10.77.0.1";
        assertThat(e.matches(entry("nfs4", "10.77.0.1:/tank/pillar/pvc-1", sb))).isTrue();
        assertThat(e.matches(entry("nfs4", "10.77.0.1:/tank/pillar/pvc-1", sb.replace("xprtsec=tls,", "")))).as("a plaintext mount").isFalse();
        NfsExport plain = new NfsExport("10.77.0.1", "/tank/pillar/pvc-1", "10.77.1.2");
        assertThat(plain.matches(entry("nfs4", "10.77.0.1:/tank/pillar/pvc-1", sb))).as("a TLS mount for a plaintext export").isFalse();

        c.put(PublishContext.TLS, "tls1.2");
        assertThatThrownBy(() -> NfsExport.fromPublishContext(c)).isInstanceOf(InvalidValueException.class)
                .hasMessageContaining("publish_context.tls");
    }

    static MountEntry entry(String fsType, String source, String superOptions) {
        return new MountEntry(1, 0, "0:50", "/", java.nio.file.Path.of("/stage"), "rw", fsType, source, superOptions);
    }
}
