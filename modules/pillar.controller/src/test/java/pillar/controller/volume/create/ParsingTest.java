package pillar.controller.volume.create;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static pillar.controller.volume.request.SizesTest.assertCode;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import io.grpc.Status;
import org.junit.jupiter.api.Test;
import pillar.api.csi.v1.VolumeCapability.AccessMode.Mode;
import pillar.api.value.InvalidValueException;
import pillar.controller.crd.LvmStore;
import pillar.controller.crd.PillarStoreSpec;
import pillar.controller.crd.PillarVolumeStateSpec.VolumeMode;
import pillar.controller.crd.ProtocolKind;
import pillar.controller.crd.StorageClassParameters;
import pillar.controller.crd.ZfsStore;
import pillar.controller.csi.Requests;
import pillar.controller.volume.ExportSpecs;
import pillar.controller.volume.request.Capabilities;

/** The pure checks of the CSI Controller service: parameters, capabilities, settings, export specs. */
class ParsingTest {
    @Test
    void parametersAreCheckedKeyByKey() {
        CreateParameters p = CreateParameters.parse(Map.of(StorageClassParameters.STORE, "fast", StorageClassParameters.PROTOCOL,
                "tcp", StorageClassParameters.FS_TYPE, "xfs", StorageClassParameters.MKFS_OPTIONS, "-m 0",
                CreateParameters.PVC_NAME, "data", CreateParameters.PVC_NAMESPACE, "apps"));
        assertThat(p.store()).isEqualTo("fast");
        assertThat(p.fsType()).contains("xfs");
        assertThat(p.settings()).isEqualTo(Map.of("mkfsOptions", "-m 0"));
        assertThat(p.claim()).hasValueSatisfying(c -> assertThat(c).hasToString("apps/data"));
        for (Map<String, String> bad : List.of(Map.of(StorageClassParameters.STORE, "fast"),
                Map.of(StorageClassParameters.STORE, "fast", StorageClassParameters.PROTOCOL, "tcp", "other", "x"),
                Map.of(StorageClassParameters.STORE, "a/b", StorageClassParameters.PROTOCOL, "tcp"),
                Map.of(StorageClassParameters.STORE, "fast", StorageClassParameters.PROTOCOL, "tcp",
                        StorageClassParameters.SPARSE, "yes"))) {
            assertCode(Status.Code.INVALID_ARGUMENT, () -> CreateParameters.parse(bad));
        }
    }

    @Test
    void capabilitiesOfOneKindWithSupportedModes() {
        Capabilities.Requested fs = Capabilities.forCreate(List.of(Requests.mount(Mode.SINGLE_NODE_WRITER, ""),
                Requests.mount(Mode.MULTI_NODE_READER_ONLY, "")), Optional.of("xfs"));
        assertThat(fs.mode()).isEqualTo(VolumeMode.Filesystem);
        assertThat(fs.fsType()).contains("xfs");
        assertThat(fs.accessModes()).containsExactly("SINGLE_NODE_WRITER", "MULTI_NODE_READER_ONLY");
        assertThat(Capabilities.forCreate(List.of(Requests.block(Mode.SINGLE_NODE_SINGLE_WRITER)), Optional.of("ext4")).fsType()).isEmpty();
        assertCode(Status.Code.INVALID_ARGUMENT, () -> Capabilities.forCreate(List.of(Requests.mount(Mode.MULTI_NODE_SINGLE_WRITER,
                "")), Optional.empty()));

        // per protocol: NVMe-oF/TCP defaults to ext4 and refuses ReadWriteMany; NFS is nfs4, never Block
        Capabilities.Requested unnamed = Capabilities.forCreate(List.of(Requests.mount(Mode.SINGLE_NODE_WRITER, "")), Optional.empty());
        assertThat(Capabilities.fit(unnamed, ProtocolKind.NVMEOF_TCP).fsType()).contains("ext4");
        assertThat(Capabilities.fit(unnamed, ProtocolKind.NFS).fsType()).contains("nfs4");
        Capabilities.Requested rwx = Capabilities.forCreate(List.of(Requests.mount(Mode.MULTI_NODE_MULTI_WRITER, "nfs")), Optional.empty());
        assertThat(Capabilities.fit(rwx, ProtocolKind.NFS).fsType()).contains("nfs4");
        assertCode(Status.Code.INVALID_ARGUMENT, () -> Capabilities.fit(rwx, ProtocolKind.NVMEOF_TCP));
        assertCode(Status.Code.INVALID_ARGUMENT, () -> Capabilities.fit(fs, ProtocolKind.NFS));
        assertCode(Status.Code.INVALID_ARGUMENT, () -> Capabilities.fit(Capabilities.forCreate(List.of(
                Requests.block(Mode.MULTI_NODE_MULTI_WRITER)), Optional.empty()), ProtocolKind.NFS));
        assertCode(Status.Code.INVALID_ARGUMENT, () -> Capabilities.fit(Capabilities.forCreate(List.of(
                Requests.mount(Mode.SINGLE_NODE_WRITER, "nfs4")), Optional.empty()), ProtocolKind.NVMEOF_TCP));

        assertThat(Capabilities.mayShare("MULTI_NODE_READER_ONLY", "MULTI_NODE_READER_ONLY", false)).isTrue();
        assertThat(Capabilities.mayShare("MULTI_NODE_READER_ONLY", "SINGLE_NODE_WRITER", false)).isFalse();
        assertThat(Capabilities.mayShare("SINGLE_NODE_READER_ONLY", "SINGLE_NODE_READER_ONLY", false)).isFalse();
        assertThat(Capabilities.mayShare("MULTI_NODE_MULTI_WRITER", "MULTI_NODE_MULTI_WRITER", false)).isFalse();
        assertThat(Capabilities.mayShare("MULTI_NODE_MULTI_WRITER", "MULTI_NODE_MULTI_WRITER", true)).isTrue();
        assertThat(Capabilities.mayShare("MULTI_NODE_MULTI_WRITER", "MULTI_NODE_READER_ONLY", true)).isTrue();
        assertThat(Capabilities.mayShare("SINGLE_NODE_WRITER", "MULTI_NODE_MULTI_WRITER", true)).isFalse();
    }

    @Test
    void settingsResolveStoreThenClassThenClaim() {
        PillarStoreSpec zfs = new PillarStoreSpec();
        zfs.setZfs(new ZfsStore());
        zfs.getZfs().setVolblocksize("16K");
        zfs.getZfs().setCompression(ZfsStore.Compression.ZSTD);
        VolumeSettings settings = VolumeSettings.resolve(zfs, Map.of("volblocksize", "32K", "sparse", "true"),
                Set.of("volblocksize"), Map.of(StorageClassParameters.VOLBLOCKSIZE, "64K", "unrelated/annotation", "x"));
        assertThat(settings.backendOptions()).isEqualTo(Map.of("volblocksize", "64K", "sparse", "true", "compression", "zstd"));
        assertThat(settings.mkfsOptions()).isEqualTo(Optional.empty());

        PillarStoreSpec lvm = new PillarStoreSpec();
        lvm.setLvm(new LvmStore());
        assertThat(VolumeSettings.resolve(lvm, Map.of("mkfsOptions", "-m 0"), Set.of(), Map.of()).backendOptions()).isEmpty();
        assertCode(Status.Code.INVALID_ARGUMENT, () -> VolumeSettings.resolve(lvm, Map.of("sparse", "true"), Set.of(), Map.of()));
        assertCode(Status.Code.INVALID_ARGUMENT, () -> VolumeSettings.resolve(lvm, Map.of(),
                Set.copyOf(StorageClassParameters.SETTINGS), Map.of(StorageClassParameters.STORE, "other")));
        // a setting the class does not let claims override is refused, by name, whatever its value
        assertThatThrownBy(() -> VolumeSettings.resolve(zfs, Map.of(), Set.of("volblocksize"),
                Map.of(StorageClassParameters.SPARSE, "true")))
                .hasMessageContaining(StorageClassParameters.SPARSE).hasMessageContaining("only [volblocksize]");
    }

    @Test
    void theOverridableParameterIsAListOfDistinctSettings() {
        Map<String, String> base = Map.of(StorageClassParameters.STORE, "tank", StorageClassParameters.PROTOCOL, "tcp");
        assertThat(CreateParameters.parse(base).overridable()).isEmpty();
        Map<String, String> some = new java.util.HashMap<>(base);
        some.put(StorageClassParameters.OVERRIDABLE, "volblocksize,mkfsOptions");
        assertThat(CreateParameters.parse(some).overridable()).containsExactlyInAnyOrder("volblocksize", "mkfsOptions");
        for (String bad : List.of("", "sparse,", "sparse,sparse", "Sparse", "store", "sparse volblocksize")) {
            some.put(StorageClassParameters.OVERRIDABLE, bad);
            assertCode(Status.Code.INVALID_ARGUMENT, () -> CreateParameters.parse(some));
        }
    }

    @Test
    void theRecoveryAnnotationIsStrict() {
        assertThat(ExportSpecs.parse("bindAddress=10.0.0.5,port=4420,aclEnabled=true")).hasToString(
                "bindAddress=10.0.0.5,port=4420,aclEnabled=true,traddr=10.0.0.5");
        assertThat(ExportSpecs.parse(" bindAddress=0.0.0.0, port=4421, aclEnabled=false, traddr=10.0.0.5 ")).hasToString(
                "bindAddress=0.0.0.0,port=4421,aclEnabled=false,traddr=10.0.0.5");
        assertThat(ExportSpecs.parse("protocol=nfs,bindAddress=10.0.0.5,port=2049,aclEnabled=true")).hasToString(
                "protocol=nfs,bindAddress=10.0.0.5,port=2049,aclEnabled=true,traddr=10.0.0.5");
        assertThat(ExportSpecs.parse("protocol=nfs,bindAddress=10.0.0.5,port=2049,aclEnabled=true,rootSquash=true")).hasToString(
                "protocol=nfs,bindAddress=10.0.0.5,port=2049,aclEnabled=true,traddr=10.0.0.5,rootSquash=true");
        assertThat(ExportSpecs.toProto(ExportSpecs.parse("protocol=nfs,bindAddress=10.0.0.5,port=2049,aclEnabled=true,rootSquash=true"))
                .getNfsRootSquash()).isEqualTo(pillar.api.agent.v1.NfsRootSquash.NFS_ROOT_SQUASH_ON);
        assertThat(ExportSpecs.parse("protocol=nfs,bindAddress=10.0.0.5,port=2049,aclEnabled=true,tlsRequired=true")).as("RPC-with-TLS")
                .hasToString("protocol=nfs,bindAddress=10.0.0.5,port=2049,aclEnabled=true,traddr=10.0.0.5,tlsRequired=true");
        assertThat(ExportSpecs.toProto(ExportSpecs.parse("protocol=nfs,bindAddress=10.0.0.5,port=2049,aclEnabled=true,tlsRequired=true"))
                .getTlsRequired()).isTrue();
        assertThat(ExportSpecs.parse("bindAddress=10.0.0.5,port=4420,aclEnabled=true,authRequired=true,tlsRequired=true")).hasToString(
                "bindAddress=10.0.0.5,port=4420,aclEnabled=true,traddr=10.0.0.5,authRequired=true,tlsRequired=true");
        assertThat(ExportSpecs.toProto(ExportSpecs.parse("bindAddress=10.0.0.5,port=4420,aclEnabled=true,tlsRequired=true"))
                .getTlsRequired()).isTrue();
        assertThat(ExportSpecs.toProto(ExportSpecs.parse("bindAddress=10.0.0.5,port=4420,aclEnabled=true")).getTlsRequired()).isFalse();
        for (String bad : List.of("", "protocol=nfs,bindAddress=10.0.0.5,port=2049,aclEnabled=true,rootSquash=yes",
                "bindAddress=10.0.0.5,port=4420,aclEnabled=true,rootSquash=true", "bindAddress=10.0.0.5", "protocol=iscsi,bindAddress=10.0.0.5,port=3260,aclEnabled=true",
                "protocol=nfs,bindAddress=10.0.0.5,port=2049,aclEnabled=false", "bindAddress=10.0.0.5,port=0,aclEnabled=true",
                "bindAddress=10.0.0.5,port=4420,aclEnabled=yes", "bindAddress=host.example,port=4420,aclEnabled=true",
                "bindAddress=10.0.0.5,port=4420,aclEnabled=true,extra=1", "bindAddress=0.0.0.0,port=4420,aclEnabled=true",
                "bindAddress=10.0.0.5,bindAddress=10.0.0.6,port=4420,aclEnabled=true", "x".repeat(300),
                "bindAddress=10.0.0.5,port=4420,aclEnabled=false,tlsRequired=true", "bindAddress=10.0.0.5,port=4420,aclEnabled=true,tlsRequired=1"
        )) {
            assertThatThrownBy(() -> ExportSpecs.parse(bad)).as(bad).isInstanceOf(InvalidValueException.class);
        }
    }
}
