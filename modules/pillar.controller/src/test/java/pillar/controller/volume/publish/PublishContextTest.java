package pillar.controller.volume.publish;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;

import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import pillar.api.context.PublishContext;
import pillar.controller.crd.PillarVolumeState;
import pillar.controller.crd.PillarVolumeStateSpec;
import pillar.controller.crd.PillarVolumeStateStatus;
import pillar.controller.crd.VolumeConnect;
import pillar.controller.crd.VolumeExport;

/**
 * The publish context never asks a node to reconnect for ever: a frozen ctrl_loss_tmo within 1 to
 * 3600 s is passed on; one outside (-1 from a state frozen before the bound) is left out, so that
 * the node uses the kernel's 600 s. A TLS export's context says tls1.3.
 */
class PublishContextTest {
    @ParameterizedTest
    @CsvSource({"30, 30", "3600, 3600", "-1, ", "0, ", "86400, "})
    void ctrlLossTmoIsBounded(int frozen, String sent) {
        VolumeConnect connect = new VolumeConnect();
        connect.setCtrlLossTmo(frozen);
        connect.setReconnectDelay(2);
        PillarVolumeState state = state();
        state.getSpec().setConnect(connect);

        Map<String, String> context = Publisher.context(state, new VolumeExport("192.0.2.10", 4420, true, "192.0.2.10"));
        assertThat(context.get(PublishContext.CTRL_LOSS_TMO)).isEqualTo(sent);
        assertThat(context).containsEntry(PublishContext.RECONNECT_DELAY, "2");
    }

    /** A TLS export's context says so (its key is the publication's, added by the publish); a state of before TLS reads as plaintext. */
    @Test
    void aTlsExportsContextSaysTlsAndAPlainOneNothing() {
        VolumeExport plain = new VolumeExport("192.0.2.10", 4420, true, "192.0.2.10");
        assertThat(Publisher.context(state(), plain)).doesNotContainKeys(PublishContext.TLS, PublishContext.TLS_PSK);
        VolumeExport tls = new VolumeExport("192.0.2.10", 4420, true, "192.0.2.10");
        tls.setTlsRequired(true);
        assertThat(Publisher.context(state(), tls)).containsEntry(PublishContext.TLS, PublishContext.TLS_13)
                .doesNotContainKey(PublishContext.TLS_PSK);
        assertThat(tls).isNotEqualTo(plain);
        assertThat(tls.hasPublicationKeys()).isTrue();
        assertThat(plain.hasPublicationKeys()).isFalse();
    }

    private static PillarVolumeState state() {
        PillarVolumeStateStatus status = new PillarVolumeStateStatus();
        status.setSubsystemNqn("nqn.2026-01.io.pillar-csi:pvc-1");
        PillarVolumeState state = new PillarVolumeState();
        state.setMetadata(new ObjectMetaBuilder().withName("pvc-1").build());
        state.setSpec(new PillarVolumeStateSpec());
        state.setStatus(status);
        return state;
    }
}
