package pillar.node.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.grpc.Status;
import org.junit.jupiter.api.Test;

import pillar.api.csi.v1.VolumeCapability;
import pillar.api.csi.v1.VolumeCapability.AccessMode.Mode;
import pillar.node.fs.FsType;
import pillar.runtime.server.CsiException;

/** A request's capability: access types, fs types, flags, access modes and the code each failure gets. */
class CapabilityTest {
    static VolumeCapability mount(String fsType, Mode mode, String... flags) {
        return VolumeCapability.newBuilder()
                .setMount(VolumeCapability.MountVolume.newBuilder().setFsType(fsType).addAllMountFlags(java.util.List.of(flags)))
                .setAccessMode(VolumeCapability.AccessMode.newBuilder().setMode(mode)).build();
    }

    static VolumeCapability block(Mode mode) {
        return VolumeCapability.newBuilder().setBlock(VolumeCapability.BlockVolume.getDefaultInstance())
                .setAccessMode(VolumeCapability.AccessMode.newBuilder().setMode(mode)).build();
    }

    @Test
    void mountAndBlock() {
        Capability fs = Capability.parse(true, mount("", Mode.SINGLE_NODE_MULTI_WRITER, "noatime"));
        assertThat(fs.fsType()).contains(FsType.EXT4);
        assertThat(fs.flags()).containsExactly("noatime");
        assertThat(fs.readerOnly()).isFalse();
        Capability b = Capability.parse(true, block(Mode.MULTI_NODE_READER_ONLY));
        assertThat(b.block()).isTrue();
        assertThat(b.readerOnly()).isTrue();
        assertThat(b.describe()).isEqualTo("block MULTI_NODE_READER_ONLY");
    }

    @Test
    void eachFailureHasItsCode() {
        assertCode(() -> Capability.parse(false, VolumeCapability.getDefaultInstance()), Status.Code.INVALID_ARGUMENT);
        assertCode(() -> Capability.parse(true, VolumeCapability.newBuilder()
                .setAccessMode(VolumeCapability.AccessMode.newBuilder().setMode(Mode.SINGLE_NODE_WRITER)).build()),
                Status.Code.INVALID_ARGUMENT);
        assertCode(() -> Capability.parse(true, mount("ext4", Mode.UNKNOWN)), Status.Code.INVALID_ARGUMENT);
        assertCode(() -> Capability.parse(true, mount("ntfs", Mode.SINGLE_NODE_WRITER)), Status.Code.INVALID_ARGUMENT);
        assertCode(() -> Capability.parse(true, mount("xfs", Mode.SINGLE_NODE_WRITER, "errors=panic")),
                Status.Code.INVALID_ARGUMENT);
        assertCode(() -> Capability.parse(true, mount("xfs", Mode.MULTI_NODE_MULTI_WRITER)),
                Status.Code.FAILED_PRECONDITION);
        assertCode(() -> Capability.parse(true, block(Mode.MULTI_NODE_SINGLE_WRITER)), Status.Code.FAILED_PRECONDITION);
        VolumeCapability group = VolumeCapability.newBuilder()
                .setMount(VolumeCapability.MountVolume.newBuilder().setVolumeMountGroup("1000"))
                .setAccessMode(VolumeCapability.AccessMode.newBuilder().setMode(Mode.SINGLE_NODE_WRITER)).build();
        assertCode(() -> Capability.parse(true, group), Status.Code.INVALID_ARGUMENT);
    }

    private static void assertCode(Runnable call, Status.Code code) {
        assertThatThrownBy(call::run).isInstanceOfSatisfying(CsiException.class, e -> assertThat(e.code()).isEqualTo(code));
    }

    @Test
    void anNfsCapabilityIsAMountWithPerMountFlagsAndMayBeWrittenFromManyNodes() {
        Capability rwx = Capability.parseNfs(true, Csi.fs("nfs4", Mode.MULTI_NODE_MULTI_WRITER, "noatime"));
        assertThat(rwx.nfs()).isTrue();
        assertThat(rwx.block()).isFalse();
        assertThat(rwx.fsType()).isEmpty();
        assertThat(rwx.flags()).containsExactly("noatime");
        assertThat(rwx.describe()).isEqualTo("nfs4 [noatime] MULTI_NODE_MULTI_WRITER");
        assertThat(Capability.parseNfs(true, Csi.fs("", Mode.MULTI_NODE_SINGLE_WRITER)).readerOnly()).isFalse();
        assertThat(Capability.parseNfs(true, Csi.fs("nfs", Mode.MULTI_NODE_READER_ONLY)).readerOnly()).isTrue();
        for (var bad : java.util.List.of(Csi.block(Mode.MULTI_NODE_MULTI_WRITER), Csi.fs("ext4", Mode.SINGLE_NODE_WRITER),
                Csi.fs("nfs", Mode.SINGLE_NODE_WRITER, "vers=3"), Csi.fs("nfs", Mode.UNKNOWN))) {
            assertThatThrownBy(() -> Capability.parseNfs(true, bad))
                    .isInstanceOfSatisfying(CsiException.class,
                            e -> assertThat(e.code()).isEqualTo(Status.Code.INVALID_ARGUMENT));
        }
    }
}
