package pillar.node.attach;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;

import org.junit.jupiter.api.Test;

import pillar.api.context.PublishContext;
import pillar.api.value.InvalidValueException;

class ProtocolTest {
    @Test
    void noProtocolIsNvmeTcpNfsIsNfsAndNothingElseIsAProtocol() {
        assertThat(Protocol.of(Map.of(PublishContext.PROTOCOL, PublishContext.PROTOCOL_NFS, PublishContext.NFS_SERVER,
                "10.0.0.1"))).isEqualTo(Protocol.NFS);
        assertThat(Protocol.of(Map.of())).isEqualTo(Protocol.NVME_TCP);
        assertThat(Protocol.of(Map.of(PublishContext.PROTOCOL, ""))).isEqualTo(Protocol.NVME_TCP);
        assertThatThrownBy(() -> Protocol.of(Map.of(PublishContext.PROTOCOL, "smb")))
                .isInstanceOf(InvalidValueException.class).hasMessageContaining(PublishContext.PROTOCOL);
    }
}
