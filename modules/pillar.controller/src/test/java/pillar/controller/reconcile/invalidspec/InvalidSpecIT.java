package pillar.controller.reconcile.invalidspec;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import pillar.api.agent.v1.BackendKind;
import pillar.controller.crd.Condition;
import pillar.controller.crd.NotShipped;
import pillar.controller.crd.PillarAgent;
import pillar.controller.crd.PillarProtocol;
import pillar.controller.crd.PillarStorageClass;
import pillar.controller.crd.PillarStore;
import pillar.controller.crd.Reasons;
import pillar.controller.reconcile.ControllerHarness;
import pillar.controller.reconcile.Pillars;

/**
 * Proves that specs the schema and its CEL rules refuse are refused by the reconcilers too (the
 * test API server, like an API server older than 1.25, enforces neither): InvalidSpec with every
 * problem named, a Warning event, nothing done with the bad values; and that fixing the spec clears it.
 */
class InvalidSpecIT {
    @RegisterExtension
    final ControllerHarness harness = new ControllerHarness();

    @Test
    void anAgentWithBothANodeAndAnAddressIsRefusedAndNeverDialled() {
        PillarAgent agent = Pillars.agentAt("both", "192.0.2.10", 9500);
        agent.getSpec().setNodeName("worker-1");
        agent.getSpec().setPort(70000);
        harness.agents.agent("192.0.2.10", 9500);
        harness.create(agent);

        Condition invalid = harness.awaitCondition(PillarAgent.class, "both", PillarAgent.AGENT_CONNECTED, Condition.FALSE,
                Reasons.INVALID_SPEC, a -> a.getStatus().getConditions());
        assertThat(invalid.getMessage()).isEqualTo("spec: set exactly one of nodeName (an agent on a cluster node) and address"
                + " (an agent outside the cluster); spec.port: must be 1 to 65535, is 70000");
        assertThat(harness.events("PillarAgent", "both")).singleElement().satisfies(e -> {
            assertThat(e.getType()).isEqualTo("Warning");
            assertThat(e.getReason()).isEqualTo(Reasons.INVALID_SPEC);
            assertThat(e.getMessage()).isEqualTo(invalid.getMessage());
            assertThat(e.getMetadata().getNamespace()).isEqualTo(ControllerHarness.NAMESPACE);
        });
        assertThat(harness.agents.calls()).isEmpty();

        harness.edit(PillarAgent.class, "both", a -> {
            a.getSpec().setNodeName(null);
            a.getSpec().setPort(9500);
            return a;
        });
        harness.awaitCondition(PillarAgent.class, "both", PillarAgent.AGENT_CONNECTED, Condition.TRUE, Reasons.CONNECTED,
                a -> a.getStatus().getConditions());
    }

    @Test
    void hostileStoreNamesAreRefusedBeforeTheAgentIsAsked() {
        harness.create(Pillars.agentAt("storage-1", "192.0.2.10", 9500));
        harness.agents.agent("192.0.2.10", 9500).backend("fast", BackendKind.BACKEND_KIND_ZFS_ZVOL, "tank", "k8s");
        PillarStore store = Pillars.zfsStore("evil", "storage-1", "fast", "tank;rm -rf /", "../etc");
        store.getSpec().setLvm(Pillars.lvmStore("x", "storage-1", "fast", "vg0", null).getSpec().getLvm());
        harness.create(store);

        Condition invalid = harness.awaitCondition(PillarStore.class, "evil", PillarStore.POOL_DISCOVERED, Condition.FALSE,
                Reasons.INVALID_SPEC, s -> s.getStatus().getConditions());
        assertThat(invalid.getMessage()).contains(
                "spec: set exactly one of zfs and lvm",
                "spec.zfs.pool: must be a ZFS pool name, is 'tank;rm -rf /'",
                "spec.zfs.parentDataset: must be a dataset path below the pool");
        assertThat(harness.agents.calls()).noneMatch(c -> c.contains("GetCapacity"));
    }

    @Test
    void protocolsThatDoNotShipAndNonIpBindAddressesAreRefused() {
        PillarProtocol iscsi = Pillars.protocol("iscsi", "192.0.2.10");
        iscsi.getSpec().setIscsi(new NotShipped());
        harness.create(iscsi);
        PillarProtocol named = Pillars.protocol("by-name", "storage.example.com");
        named.getSpec().getNvmeofTcp().setCtrlLossTmo(5);
        named.getSpec().getNvmeofTcp().setReconnectDelay(10);
        harness.create(named);
        harness.create(Pillars.protocol("good", "fd00::10"));
        PillarProtocol forever = Pillars.protocol("forever", "192.0.2.10");
        forever.getSpec().getNvmeofTcp().setCtrlLossTmo(-1);
        harness.create(forever);

        assertThat(harness.awaitCondition(PillarProtocol.class, "iscsi", PillarProtocol.VALID, Condition.FALSE,
                Reasons.INVALID_SPEC, p -> p.getStatus().getConditions()).getMessage())
                .isEqualTo("spec.iscsi: iscsi is not supported yet: nvmeofTcp and nfs ship in this version");
        assertThat(harness.awaitCondition(PillarProtocol.class, "by-name", PillarProtocol.VALID, Condition.FALSE,
                Reasons.INVALID_SPEC, p -> p.getStatus().getConditions()).getMessage())
                .isEqualTo("spec.nvmeofTcp.bindAddress: must be an IP address of the storage node (IPv4 or IPv6), is"
                        + " 'storage.example.com'; spec.nvmeofTcp: ctrlLossTmo must be at least reconnectDelay");
        assertThat(harness.awaitCondition(PillarProtocol.class, "forever", PillarProtocol.VALID, Condition.FALSE,
                Reasons.INVALID_SPEC, p -> p.getStatus().getConditions()).getMessage())
                .isEqualTo("spec.nvmeofTcp.ctrlLossTmo: must be 1 to 3600, is -1");
        assertThat(harness.awaitCondition(PillarProtocol.class, "good", PillarProtocol.VALID, Condition.TRUE, Reasons.VALID,
                p -> p.getStatus().getConditions()).getMessage())
                .isEqualTo("nvmeofTcp on fd00::10 port 4420, only published hosts may connect");
    }

    @Test
    void aStorageClassWithUnknownOrBadParametersCreatesNothing() {
        harness.create(Pillars.protocol("tcp", "192.0.2.10"));
        harness.create(Pillars.zfsStore("tank", "storage-1", "fast", "tank", "k8s"));
        PillarStorageClass psc = Pillars.storageClass("bad", "tank", "tcp");
        psc.getSpec().setParameters(Map.of("volblocksize", "3K", "csi.storage.k8s.io/provisioner-secret-name", "x"));
        psc.getSpec().getMountOptions().add("rw,exec");
        harness.create(psc);

        Condition invalid = harness.awaitCondition(PillarStorageClass.class, "bad", PillarStorageClass.STORAGE_CLASS_CREATED,
                Condition.FALSE, Reasons.INVALID_SPEC, c -> c.getStatus().getConditions());
        assertThat(invalid.getMessage()).contains(
                "spec.mountOptions[0]: must be one mount option",
                "spec.parameters.volblocksize: must be 4K, 8K, 16K, 32K, 64K or 128K, is '3K'",
                "'csi.storage.k8s.io/provisioner-secret-name' is not a volume setting");
        assertThat(harness.get(io.fabric8.kubernetes.api.model.storage.StorageClass.class, "bad")).isEmpty();
    }
}
