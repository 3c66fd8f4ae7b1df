package pillar.node.nvme;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HashMap;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import pillar.api.context.PublishContext;
import pillar.api.value.InvalidValueException;
import pillar.api.value.Nqn;

/** The publish context, validated; the fabrics options string; the connect reply. */
class FabricsTargetTest {
    static Map<String, String> context() {
        Map<String, String> c = new HashMap<>();
        c.put(PublishContext.NQN, "nqn.2024-01.io.pillar-csi:pvc-1");
        c.put(PublishContext.TRANSPORT, "tcp");
        c.put(PublishContext.TRADDR, "10.0.0.5");
        c.put(PublishContext.TRSVCID, "4420");
        return c;
    }

    @Test
    void aMinimalContextGetsTheKernelDefaults() {
        FabricsTarget t = FabricsTarget.fromPublishContext(context());
        assertThat(t.nqn()).isEqualTo(Nqn.of("nqn.2024-01.io.pillar-csi:pvc-1"));
        assertThat(t.trsvcid()).isEqualTo(4420);
        assertThat(t.ctrlLossTmo()).isEqualTo(600);
        assertThat(t.reconnectDelay()).isEqualTo(10);
        assertThat(t.nrIoQueues()).isZero();
        assertThat(t.describe()).isEqualTo("nqn.2024-01.io.pillar-csi:pvc-1 at tcp:10.0.0.5:4420");
    }

    @Test
    void aPublicationsHostNqnIsTheConnectsHostAndItsOwnHostIdAndAMalformedOneIsInvalid() {
        Map<String, String> c = context();
        Nqn own = pillar.api.context.PublicationHost.nqn("worker-1", "pvc-1");
        c.put(PublishContext.HOST_NQN, own.value());
        FabricsTarget t = FabricsTarget.fromPublishContext(c);
        Nqn node = Nqn.of("nqn.2024-01.io.example:node-a");
        assertThat(t.hostOr(node)).isEqualTo(own);
        assertThat(FabricsOptions.connect(t, t.hostOr(node))).contains(",hostnqn=" + own.value() + ",hostid="
                + own.value().substring(own.value().lastIndexOf(':') + 1) + ",");
        assertThat(FabricsTarget.fromPublishContext(context()).hostOr(node)).isEqualTo(node);
        c.put(PublishContext.HOST_NQN, "nqn.2024-01.io.example:a,dhchap_secret=x");
        assertThatThrownBy(() -> FabricsTarget.fromPublishContext(c)).isInstanceOf(InvalidValueException.class)
                .hasMessageContaining("publish_context.hostNqn");
    }

    @Test
    void optionsStringCarriesEverySetting() {
        Map<String, String> c = context();
        c.put(PublishContext.CTRL_LOSS_TMO, "3600");
        c.put(PublishContext.RECONNECT_DELAY, "5");
        c.put(PublishContext.NR_IO_QUEUES, "4");
        c.put("someFutureKey", "ignored");
        Nqn host = Nqn.of("nqn.2014-08.org.nvmexpress:uuid:3f0c2a7e-1111-2222-3333-444455556666");
        assertThat(FabricsOptions.connect(FabricsTarget.fromPublishContext(c), host)).isEqualTo(
                "nqn=nqn.2024-01.io.pillar-csi:pvc-1,transport=tcp,traddr=10.0.0.5,trsvcid=4420,"
                        + "hostnqn=nqn.2014-08.org.nvmexpress:uuid:3f0c2a7e-1111-2222-3333-444455556666,"
                        + "hostid=3f0c2a7e-1111-2222-3333-444455556666,"
                        + "ctrl_loss_tmo=3600,reconnect_delay=5,nr_io_queues=4");
        assertThat(FabricsOptions.connect(FabricsTarget.fromPublishContext(context()), host))
                .doesNotContain("nr_io_queues");
    }

    @Test
    void eachHostNqnHasItsOwnHostIdEveryTime() {
        Nqn named = Nqn.of("nqn.2024-01.io.example:node-a");
        assertThat(FabricsOptions.hostId(named)).isEqualTo(FabricsOptions.hostId(Nqn.of("nqn.2024-01.io.example:node-a")))
                .isNotEqualTo(FabricsOptions.hostId(Nqn.of("nqn.2024-01.io.example:node-b")));
        assertThat(FabricsOptions.connect(FabricsTarget.fromPublishContext(context()), named))
                .contains(",hostid=" + FabricsOptions.hostId(named) + ",");
    }

    @ParameterizedTest
    @ValueSource(strings = {"-1", "3601", "86400"})
    void ctrlLossTmoIsBoundedInAPublishContext(String value) {
        Map<String, String> c = context();
        c.put(PublishContext.CTRL_LOSS_TMO, value);
        assertThatThrownBy(() -> FabricsTarget.fromPublishContext(c)).isInstanceOf(InvalidValueException.class)
                .hasMessageStartingWith("publish_context.ctrlLossTmo: must be 0 to 3600 seconds")
                .hasMessageEndingWith("is " + value);
    }

    @Test
    void ctrlLossTmoBoundsAreAcceptedAndOldRecordsStayReadable() {
        for (String value : new String[] {"0", "3600"}) {
            Map<String, String> c = context();
            c.put(PublishContext.CTRL_LOSS_TMO, value);
            assertThat(FabricsTarget.fromPublishContext(c).ctrlLossTmo()).isEqualTo(Integer.parseInt(value));
        }
        // a stage record written before the bound names -1; it must still load so the volume can be unstaged
        assertThat(new FabricsTarget(Nqn.of("nqn.2024-01.io.pillar-csi:pvc-1"), "tcp", "10.0.0.5", 4420, -1, 10, 0)
                .ctrlLossTmo()).isEqualTo(-1);
    }

    @Test
    void ipv6LiteralsAreAccepted() {
        Map<String, String> c = context();
        c.put(PublishContext.TRADDR, "fd00::5");
        FabricsTarget t = FabricsTarget.fromPublishContext(c);
        assertThat(t.describe()).endsWith("tcp:[fd00::5]:4420");
    }

    @ParameterizedTest
    @ValueSource(strings = {"storage.local", "10.0.0.256", "10.0.0", "010.0.0.5", "10.0.0.5,nqn=evil",
        "fe80::1%eth0", "::ffff:", "1.2.3.4 ", "", ":::", "localhost"})
    void addressesMustBeIpLiterals(String traddr) {
        Map<String, String> c = context();
        c.put(PublishContext.TRADDR, traddr);
        assertThatThrownBy(() -> FabricsTarget.fromPublishContext(c)).isInstanceOf(InvalidValueException.class);
    }

    @Test
    void everyKnownKeyIsChecked() {
        for (String[] bad : new String[][] {
            {PublishContext.NQN, "nqn.2024-01.io.pillar,hostnqn=x"}, {PublishContext.NQN, ""},
            {PublishContext.TRANSPORT, "rdma"}, {PublishContext.TRSVCID, "0"}, {PublishContext.TRSVCID, "65536"},
            {PublishContext.TRSVCID, "44 20"}, {PublishContext.TRSVCID, "+4420"}, {PublishContext.CTRL_LOSS_TMO, "-2"},
            {PublishContext.RECONNECT_DELAY, "0"}, {PublishContext.NR_IO_QUEUES, "99999"},
            {PublishContext.CTRL_LOSS_TMO, "99999999999"}}) {
            Map<String, String> c = context();
            c.put(bad[0], bad[1]);
            assertThatThrownBy(() -> FabricsTarget.fromPublishContext(c)).as(bad[0] + "=" + bad[1])
                    .isInstanceOf(InvalidValueException.class);
        }
        Map<String, String> missing = context();
        missing.remove(PublishContext.TRADDR);
        assertThatThrownBy(() -> FabricsTarget.fromPublishContext(missing))
                .hasMessageContaining("publish_context.traddr: is required");
    }

    @Test
    void sameEndpointComparesSubsystemAndAddressOnly() {
        FabricsTarget a = FabricsTarget.fromPublishContext(context());
        Map<String, String> c = context();
        c.put(PublishContext.RECONNECT_DELAY, "3");
        assertThat(a.sameEndpoint(FabricsTarget.fromPublishContext(c))).isTrue();
        c.put(PublishContext.TRSVCID, "4421");
        assertThat(a.sameEndpoint(FabricsTarget.fromPublishContext(c))).isFalse();
    }

    @Test
    void theConnectReplyNamesTheController() {
        assertThat(FabricsOptions.parseReply("instance=3,cntlid=1\n")).isEqualTo(new Controller(3));
        assertThat(FabricsOptions.parseReply("instance=12,cntlid=65519")).isEqualTo(new Controller(12));
        for (String bad : new String[] {"", "instance=x,cntlid=1", "cntlid=1,instance=3", "instance=3", "error\u0007"}) {
            assertThatThrownBy(() -> FabricsOptions.parseReply(bad)).isInstanceOf(InitiatorException.class)
                    .hasMessageNotContaining("\u0007");
        }
        assertThat(Controller.parse("nvme7").name()).isEqualTo("nvme7");
        for (String bad : new String[] {"nvme", "nvme01", "nvme1n1", "../nvme1", "nvme-1"}) {
            assertThatThrownBy(() -> Controller.parse(bad)).isInstanceOf(InvalidValueException.class);
        }
    }
}
