package pillar.controller.csi.auth;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Map;
import java.util.function.Consumer;

import io.fabric8.kubernetes.client.KubernetesClientException;
import pillar.api.csi.v1.VolumeCapability.AccessMode.Mode;
import pillar.controller.crd.NvmeofTcp;
import pillar.controller.crd.PillarProtocol;
import pillar.controller.csi.CsiHarness;
import pillar.controller.csi.Requests;

/** The steps the tests of per-publication keys share: the harness's protocol set to require them, a publish, a Secret value. */
public final class KeyedPublications {
    private KeyedPublications() {
    }

    /**
     * Changes the harness's protocol, e.g. to require authentication or TLS; again on a conflict, since the
     * controller's reconciler may write the protocol's status between the read and the write (409), as a user's
     * {@code kubectl edit} would be asked to.
     */
    public static void protocol(CsiHarness harness, Consumer<NvmeofTcp> change) {
        for (int attempt = 1; ; attempt++) {
            try {
                harness.client().resources(PillarProtocol.class).withName(CsiHarness.PROTOCOL).edit(p -> {
                    change.accept(p.getSpec().getNvmeofTcp());
                    return p;
                });
                return;
            } catch (KubernetesClientException e) {
                if (e.getCode() != 409 || attempt == 10) {
                    throw e;
                }
            }
        }
    }

    /** Publishes the volume read-only-many to the node and returns its publish context. */
    static Map<String, String> publish(CsiHarness harness, String volume, String node) {
        return harness.csi().controllerPublishVolume(Requests.publish(volume, node,
                Requests.mount(Mode.MULTI_NODE_READER_ONLY, "ext4"), true)).getPublishContextMap();
    }

    /** A value as a Secret's data holds it. */
    static String encode(String value) {
        return Base64.getEncoder().encodeToString(value.getBytes(StandardCharsets.UTF_8));
    }
}
