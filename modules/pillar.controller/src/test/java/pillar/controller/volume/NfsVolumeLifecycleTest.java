package pillar.controller.volume;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static pillar.controller.csi.Requests.NODE_A;
import static pillar.controller.csi.Requests.NODE_B;
import static pillar.controller.volume.InMemoryController.GIB;
import static pillar.controller.volume.VolumeLifecycleTest.assertCode;

import java.util.List;
import java.util.Map;

import io.grpc.Status;
import org.junit.jupiter.api.Test;
import pillar.api.agent.v1.ExportProtocol;
import pillar.api.agent.v1.NfsRootSquash;
import pillar.api.context.PublishContext;
import pillar.api.csi.v1.CapacityRange;
import pillar.api.csi.v1.ControllerExpandVolumeRequest;
import pillar.api.csi.v1.VolumeCapability;
import pillar.api.csi.v1.VolumeCapability.AccessMode.Mode;
import pillar.controller.crd.PillarVolumeState;
import pillar.controller.crd.ProtocolKind;
import pillar.controller.crd.Publication;
import pillar.controller.crd.StorageClassParameters;
import pillar.controller.csi.Requests;

/**
 * NFS volumes in memory: a dataset store with an nfs protocol creates a dataset exported over NFS;
 * each publication admits its node by the InternalIP of its Node object, recorded on the
 * publication (read-only for a read-only publication), and the unpublish removes exactly that address; ReadWriteMany and ReadOnlyMany share
 * a volume between nodes, ReadWriteOnce does not; every combination a protocol cannot serve is
 * INVALID_ARGUMENT before anything is written.
 */
class NfsVolumeLifecycleTest {
    private static final String NODE_C = "nqn.2014-08.org.nvmexpress:uuid:cccccccc-0000-4000-8000-000000000003";
    private final InMemoryController controller = new InMemoryController().nfsStore("shared", "nfs")
            .node("worker-a", NODE_A, "10.0.0.1").node("worker-b", NODE_B, "10.0.0.2");

    @Test
    void aReadWriteManyVolumeIsMountedByTwoNodesEachAdmittedByItsOwnAddressUntilUnpublished() {
        controller.create(Requests.create("pvc-1", GIB, rwx(), nfs()));
        PillarVolumeState state = record("pvc-1");
        assertThat(state.getSpec().getExport().protocolKind()).isEqualTo(ProtocolKind.NFS);
        assertThat(state.getSpec().getExport().getTraddr()).isEqualTo(InMemoryController.HOST);
        assertThat(state.getSpec().getExport().getPort()).isEqualTo(2049);
        assertThat(state.getSpec().getFsType()).isEqualTo("nfs4");
        assertThat(state.getSpec().getBackendOptions()).as("no zvol setting reaches a dataset").isEmpty();
        assertThat(state.getStatus().getExportPath()).isEqualTo("/tank/nfs/pvc-1");
        assertThat(state.getStatus().getSubsystemNqn()).isNull();
        assertThat(state.getStatus().getDevicePath()).isNull();
        assertThat(controller.agent().exports().get("pvc-1").spec().getProtocol()).isEqualTo(ExportProtocol.EXPORT_PROTOCOL_NFS);

        Map<String, String> a = controller.publish(Requests.publish("pvc-1", NODE_A, rwx(), false)).getPublishContextMap();
        Map<String, String> b = controller.publish(Requests.publish("pvc-1", NODE_B, rwx(), false)).getPublishContextMap();
        assertThat(a).containsExactlyInAnyOrderEntriesOf(Map.of(PublishContext.PROTOCOL, PublishContext.PROTOCOL_NFS,
                PublishContext.NFS_SERVER, InMemoryController.HOST, PublishContext.NFS_EXPORT, "/tank/nfs/pvc-1",
                PublishContext.NFS_CLIENT_ADDRESS, "10.0.0.1"));
        assertThat(b).containsEntry(PublishContext.NFS_CLIENT_ADDRESS, "10.0.0.2");
        assertThat(controller.agent().allowedHosts("pvc-1")).containsExactly("10.0.0.1", "10.0.0.2");
        assertThat(record("pvc-1").getStatus().getPublications()).extracting(Publication::getNode, Publication::getClientAddress)
                .containsExactly(org.assertj.core.groups.Tuple.tuple(NODE_A, "10.0.0.1"), org.assertj.core.groups.Tuple.tuple(NODE_B, "10.0.0.2"));
        controller.publish(Requests.publish("pvc-1", NODE_A, rwx(), false)); // the same again: the same grant
        assertThat(controller.agent().allowedHosts("pvc-1")).containsExactly("10.0.0.1", "10.0.0.2");

        var grown = controller.expand(ControllerExpandVolumeRequest.newBuilder().setVolumeId("pvc-1")
                .setCapacityRange(CapacityRange.newBuilder().setRequiredBytes(2 * GIB)).build());
        assertThat(grown.getCapacityBytes()).isEqualTo(2 * GIB);
        assertThat(grown.getNodeExpansionRequired()).as("a refquota is all there is to grow").isFalse();

        controller.unpublish(Requests.unpublish("pvc-1", NODE_A));
        assertThat(controller.agent().allowedHosts("pvc-1")).containsExactly("10.0.0.2");
        controller.unpublish(Requests.unpublish("pvc-1", NODE_A)); // again: nothing more is removed
        assertThat(controller.agent().allowedHosts("pvc-1")).containsExactly("10.0.0.2");
        controller.unpublish(Requests.unpublish("pvc-1", NODE_B));
        assertThat(controller.agent().allowedHosts("pvc-1")).isEmpty();
        controller.delete(Requests.delete("pvc-1"));
        assertThat(controller.agent().volumes()).isEmpty();
        assertThat(controller.agent().exports()).isEmpty();
        assertThat(controller.records.names()).isEmpty();
    }

    @Test
    void readWriteOnceKeepsAnNfsVolumeOnOneNodeAndReadOnlyManySharesIt() {
        controller.create(Requests.create("pvc-rwo", GIB, Requests.mount(Mode.SINGLE_NODE_WRITER, "nfs4"), nfs()));
        controller.publish(Requests.publish("pvc-rwo", NODE_A, Requests.mount(Mode.SINGLE_NODE_WRITER, ""), false));
        assertCode(Status.Code.FAILED_PRECONDITION, () -> controller.publish(Requests.publish("pvc-rwo", NODE_B,
                Requests.mount(Mode.SINGLE_NODE_WRITER, ""), false)));
        assertThat(controller.agent().allowedHosts("pvc-rwo")).containsExactly("10.0.0.1");

        VolumeCapability rox = Requests.mount(Mode.MULTI_NODE_READER_ONLY, "");
        controller.create(Requests.create("pvc-rox", GIB, rox, nfs()));
        controller.publish(Requests.publish("pvc-rox", NODE_A, rox, true));
        controller.publish(Requests.publish("pvc-rox", NODE_B, rox, true));
        assertThat(controller.agent().allowedHosts("pvc-rox")).containsExactly("10.0.0.1", "10.0.0.2");
    }

    @Test
    void aReadOnlyPublicationAdmitsItsNodeReadOnlyAndAReadWriteOneOfTheVolumeStaysReadWrite() {
        VolumeCapability rox = Requests.mount(Mode.MULTI_NODE_READER_ONLY, "");
        controller.create(Requests.create("pvc-rox", GIB, rox, nfs()));
        controller.publish(Requests.publish("pvc-rox", NODE_A, rox, false)); // ReadOnlyMany, though the CO said read-write
        assertThat(controller.agent().readOnlyHosts("pvc-rox")).containsExactly("10.0.0.1");

        controller.create(Requests.create("pvc-1", GIB, rwx(), nfs()));
        controller.publish(Requests.publish("pvc-1", NODE_A, rwx(), true)); // ControllerPublishVolume's readonly
        controller.publish(Requests.publish("pvc-1", NODE_B, rwx(), false));
        assertThat(controller.agent().allowedHosts("pvc-1")).containsExactly("10.0.0.1", "10.0.0.2");
        assertThat(controller.agent().readOnlyHosts("pvc-1")).containsExactly("10.0.0.1");

        controller.unpublish(Requests.unpublish("pvc-1", NODE_A));
        controller.publish(Requests.publish("pvc-1", NODE_A, rwx(), false)); // published again read-write: its entry rewritten
        assertThat(controller.agent().readOnlyHosts("pvc-1")).isEmpty();
    }

    @Test
    void whatAProtocolCannotServeIsRefusedBeforeAnythingIsWritten() {
        List<Runnable> refused = List.of(
                () -> controller.create(Requests.create("v1", GIB, Requests.block(Mode.MULTI_NODE_MULTI_WRITER), nfs())),
                () -> controller.create(Requests.create("v2", GIB, Requests.mount(Mode.MULTI_NODE_MULTI_WRITER, "ext4"), nfs())),
                // ReadWriteMany over NVMe-oF/TCP, and each protocol on the other's store
                () -> controller.create(Requests.create("v3", GIB, rwx(), parameters(InMemoryController.STORE, InMemoryController.PROTOCOL))),
                () -> controller.create(Requests.create("v4", GIB, rwx(), parameters(InMemoryController.STORE, "nfs"))),
                () -> controller.create(Requests.create("v5", GIB, Requests.rwo(), parameters("shared", InMemoryController.PROTOCOL))),
                // a zvol setting on a dataset store
                () -> controller.create(Requests.create("v6", GIB, rwx(), withSetting(nfs(), "volblocksize", "16K"))),
                () -> controller.create(Requests.create("v7", GIB, rwx(), withSetting(nfs(), "sparse", "true"))),
                () -> controller.create(Requests.create("v8", GIB, Requests.mount(Mode.MULTI_NODE_SINGLE_WRITER, ""), nfs())));
        for (Runnable call : refused) {
            assertCode(Status.Code.INVALID_ARGUMENT, call);
        }
        assertThat(controller.records.names()).isEmpty();
        assertThat(controller.agent().volumes()).isEmpty();

        controller.create(Requests.create("pvc-1", GIB, Requests.rwo(), parameters(InMemoryController.STORE, InMemoryController.PROTOCOL)));
        assertCode(Status.Code.INVALID_ARGUMENT, () -> controller.publish(Requests.publish("pvc-1", NODE_A,
                Requests.mount(Mode.MULTI_NODE_MULTI_WRITER, "ext4"), false)));
        assertThat(controller.agent().allowedHosts("pvc-1")).isEmpty();
    }

    @Test
    void aNodeWithoutAnAddressOfTheServersFamilyOrWithAnotherNodesAddressIsNeverAdmitted() {
        controller.node("worker-v6", NODE_C, "fd00::3");
        controller.create(Requests.create("pvc-1", GIB, rwx(), nfs()));

        assertCode(Status.Code.FAILED_PRECONDITION, () -> controller.publish(Requests.publish("pvc-1", NODE_C, rwx(), false)));
        assertCode(Status.Code.NOT_FOUND, () -> controller.publish(Requests.publish("pvc-1",
                "nqn.2014-08.org.nvmexpress:uuid:dddddddd-0000-4000-8000-000000000004", rwx(), false)));
        controller.node("worker-v6", NODE_C, "10.0.0.1"); // now it has an address: node A's
        controller.publish(Requests.publish("pvc-1", NODE_A, rwx(), false));
        assertCode(Status.Code.FAILED_PRECONDITION, () -> controller.publish(Requests.publish("pvc-1", NODE_C, rwx(), false)));
        assertThat(controller.agent().allowedHosts("pvc-1")).containsExactly("10.0.0.1");
        assertThat(record("pvc-1").getStatus().getPublications()).extracting(Publication::getNode).containsExactly(NODE_A);
    }

    @Test
    void aNodeWhoseAddressChangedIsAdmittedAtItsNewAddressOnlyAndUnpublishedFromTheRecordedOne() {
        controller.create(Requests.create("pvc-1", GIB, rwx(), nfs()));
        controller.publish(Requests.publish("pvc-1", NODE_A, rwx(), false));
        controller.node("worker-a", NODE_A, "10.0.0.9");
        Map<String, String> context = controller.publish(Requests.publish("pvc-1", NODE_A, rwx(), false)).getPublishContextMap();
        assertThat(context).containsEntry(PublishContext.NFS_CLIENT_ADDRESS, "10.0.0.9");
        assertThat(controller.agent().allowedHosts("pvc-1")).containsExactly("10.0.0.9");

        controller.node("worker-a", NODE_A, "10.0.0.10"); // changed again: the unpublish removes what was admitted
        controller.unpublish(Requests.unpublish("pvc-1", NODE_A));
        assertThat(controller.agent().allowedHosts("pvc-1")).isEmpty();
    }

    @Test
    void anNfsProtocolWithoutAServerAddressServesFromTheAgentsAddress() {
        controller.inventory.put(pillar.controller.reconcile.Pillars.nfsProtocol("nfs-here", null));
        controller.create(Requests.create("pvc-1", GIB, rwx(), parameters("shared", "nfs-here")));
        assertThat(record("pvc-1").getSpec().getExport().getTraddr()).isEqualTo(InMemoryController.HOST);
        assertThat(controller.publish(Requests.publish("pvc-1", NODE_A, rwx(), false)).getPublishContextMap())
                .containsEntry(PublishContext.NFS_SERVER, InMemoryController.HOST);
    }

    @Test
    void aRootSquashingProtocolFreezesRootSquashOnEachNewVolumeAndTheDefaultIsNoRootSquash() {
        controller.create(Requests.create("pvc-plain", GIB, rwx(), nfs()));
        pillar.controller.crd.PillarProtocol squashing = pillar.controller.reconcile.Pillars.nfsProtocol("nfs-squash", InMemoryController.HOST);
        squashing.getSpec().getNfs().setSquash(pillar.controller.crd.Nfs.Squash.ROOT_SQUASH);
        controller.inventory.put(squashing);
        controller.agent().nfsRootSquash(false);
        assertCode(Status.Code.FAILED_PRECONDITION, () -> controller.create(Requests.create("pvc-1", GIB, rwx(),
                parameters("shared", "nfs-squash"))));
        assertThat(controller.records.get("pvc-1")).as("an agent that would ignore root_squash gets no volume").isEmpty();
        controller.agent().nfsRootSquash(true);

        controller.create(Requests.create("pvc-1", GIB, rwx(), parameters("shared", "nfs-squash")));
        controller.publish(Requests.publish("pvc-1", NODE_A, rwx(), false));

        assertThat(record("pvc-1").getSpec().getExport().getRootSquash()).isTrue();
        assertThat(controller.agent().exports().get("pvc-1").spec().getNfsRootSquash()).isEqualTo(NfsRootSquash.NFS_ROOT_SQUASH_ON);
        assertThat(record("pvc-plain").getSpec().getExport().getRootSquash()).as("unset: no_root_squash").isNull();
        assertThat(controller.agent().exports().get("pvc-plain").spec().getNfsRootSquash())
                .isEqualTo(NfsRootSquash.NFS_ROOT_SQUASH_UNSPECIFIED);

        squashing.getSpec().getNfs().setSquash(pillar.controller.crd.Nfs.Squash.NO_ROOT_SQUASH);
        controller.inventory.put(squashing);
        controller.publish(Requests.publish("pvc-1", NODE_B, rwx(), false));
        assertThat(controller.agent().exports().get("pvc-1").spec().getNfsRootSquash()).as("frozen at creation")
                .isEqualTo(NfsRootSquash.NFS_ROOT_SQUASH_ON);
    }

    @Test
    void aTlsProtocolFreezesTlsOnEachNewVolumeTellsTheNodeAndAnAgentWithoutNfsTlsGetsNoVolume() {
        pillar.controller.crd.PillarProtocol tls = pillar.controller.reconcile.Pillars.nfsProtocol("nfs-tls", InMemoryController.HOST);
        tls.getSpec().getNfs().setTls(pillar.controller.crd.TlsMode.REQUIRED);
        controller.inventory.put(tls);
        assertThatThrownBy(() -> controller.create(Requests.create("pvc-1", GIB, rwx(), parameters("shared", "nfs-tls"))))
                .isInstanceOfSatisfying(io.grpc.StatusRuntimeException.class,
                        e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.FAILED_PRECONDITION))
                .hasMessageContaining("NfsTlsUnsupported").hasMessageContaining("tls: off");
        assertThat(controller.records.get("pvc-1")).as("an agent that cannot require TLS gets no volume").isEmpty();
        controller.agent().nfsTls(true);

        controller.create(Requests.create("pvc-1", GIB, rwx(), parameters("shared", "nfs-tls")));
        Map<String, String> context = controller.publish(Requests.publish("pvc-1", NODE_A, rwx(), false)).getPublishContextMap();

        assertThat(record("pvc-1").getSpec().getExport().getTlsRequired()).isTrue();
        assertThat(record("pvc-1").getSpec().getExport().hasPublicationKeys()).as("no key: the server's certificate is tlshd's").isFalse();
        assertThat(controller.agent().exports().get("pvc-1").spec().getTlsRequired()).isTrue();
        assertThat(context).containsEntry(PublishContext.TLS, PublishContext.TLS_13).doesNotContainKey(PublishContext.TLS_PSK);
        controller.create(Requests.create("pvc-plain", GIB, rwx(), nfs()));
        assertThat(controller.publish(Requests.publish("pvc-plain", NODE_A, rwx(), false)).getPublishContextMap())
                .doesNotContainKey(PublishContext.TLS);

        tls.getSpec().getNfs().setTls(pillar.controller.crd.TlsMode.OFF);
        controller.inventory.put(tls);
        assertThat(controller.publish(Requests.publish("pvc-1", NODE_B, rwx(), false)).getPublishContextMap()).as("frozen at creation")
                .containsEntry(PublishContext.TLS, PublishContext.TLS_13);
    }

    private PillarVolumeState record(String name) {
        return controller.records.get(name).orElseThrow();
    }

    private static VolumeCapability rwx() {
        return Requests.mount(Mode.MULTI_NODE_MULTI_WRITER, "");
    }

    private static Map<String, String> nfs() {
        return parameters("shared", "nfs");
    }

    private static Map<String, String> parameters(String store, String protocol) {
        return Map.of(StorageClassParameters.STORE, store, StorageClassParameters.PROTOCOL, protocol);
    }

    private static Map<String, String> withSetting(Map<String, String> parameters, String setting, String value) {
        Map<String, String> with = new java.util.TreeMap<>(parameters);
        with.put(StorageClassParameters.key(setting), value);
        return with;
    }
}
