package pillar.agent.backend.lvm;

import static org.assertj.core.api.Assertions.assertThat;
import static pillar.agent.backend.BackendAssertions.assertFails;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import pillar.agent.backend.BackendException.Kind;
import pillar.agent.backend.BackendVolume;
import pillar.agent.backend.VolumeBackend.Capacity;
import pillar.agent.backend.VolumeBackend;
import pillar.agent.config.BackendConfig;
import pillar.agent.state.InstallationId;
import pillar.api.agent.v1.BackendKind;
import pillar.api.value.ByteSize;
import pillar.api.value.VolumeId;

/**
 * LvmBackend through the ProcessRunner port against the stateful fake LVM: the contract of
 * {@link VolumeBackend} (idempotent create, never shrink, delete of a missing volume, only our
 * volumes), the exact argument lists, and hostile input that must not reach a single command.
 */
class LvmBackendTest extends FakeLvmFixture {
    @Test
    void linearCreateRoundsUpToWholeExtentsTagsWipesAndReturnsTheDevice() {
        BackendVolume volume = linear.create(PVC1, ByteSize.ofMiB(5), Map.of());

        assertThat(volume).isEqualTo(new BackendVolume(PVC1, ByteSize.ofMiB(8), lvm.node("pvc-1")));
        assertThat(volume.device()).exists();
        // the extent size is not known yet: one vgs, then lvcreate, and nothing read back
        assertThat(lvm.argvs()).containsExactly(
                vgs(),
                List.of("lvcreate", "-y", "--wipesignatures", "y", "--zero", "y", "--addtag", "pillar-csi", "--addtag", "pillar-csi.installation:embedded", "-n", "pvc-1", "-L", "8388608b", "vg0"));
    }

    @Test
    void onceTheExtentSizeIsKnownACreateIsOneLvcreate() {
        linear.capacity(); // as the agent's start-up check does
        int before = lvm.argvs().size();

        BackendVolume volume = linear.create(PVC1, ByteSize.ofMiB(5), Map.of());

        assertThat(volume).isEqualTo(new BackendVolume(PVC1, ByteSize.ofMiB(8), lvm.node("pvc-1")));
        assertThat(lvm.programs().subList(before, lvm.programs().size())).containsExactly("lvcreate");
    }

    @Test
    void whenLvmRoundsAgainTheCreatedSizeIsReadBack() {
        lvm.changeExtentSize(2 * ByteSize.MIB);
        linear.capacity(); // learns 2 MiB extents
        lvm.changeExtentSize(4 * ByteSize.MIB); // vgchange -s 4m meanwhile

        BackendVolume volume = linear.create(PVC1, ByteSize.ofMiB(5), Map.of());

        assertThat(volume.size()).isEqualTo(ByteSize.ofMiB(8));
        assertThat(lvm.sizeOf("pvc-1")).isEqualTo(8 * ByteSize.MIB);
        assertThat(lvm.argvs()).contains(List.of("lvcreate", "-y", "--wipesignatures", "y", "--zero", "y", "--addtag", "pillar-csi",
                "--addtag", "pillar-csi.installation:embedded", "-n", "pvc-1", "-L", "6291456b", "vg0"));
        assertThat(lvm.programs()).containsExactly("vgs", "lvcreate", "lvs");
    }

    @Test
    void thinCreateMayOvercommitThePoolUpToItsRatio() {
        LvmBackend thin = backend(thinWithRatio("4")); // 4 x 256 MiB

        BackendVolume volume = thin.create(PVC1, ByteSize.ofGiB(1), Map.of());

        assertThat(volume).isEqualTo(new BackendVolume(PVC1, ByteSize.ofGiB(1), lvm.node("pvc-1")));
        assertThat(lvm.argvs()).contains(List.of("lvcreate", "-y", "--wipesignatures", "y", "--addtag", "pillar-csi", "--addtag", "pillar-csi.installation:embedded", "-n", "pvc-1",
                "-V", "1073741824b", "--thinpool", "pool0", "vg0"));
    }

    @Test
    void createTwiceWithTheSameRoundedSizeReturnsTheSameVolumeAndRunsLvcreateOnce() {
        BackendVolume first = linear.create(PVC1, ByteSize.ofMiB(5), Map.of());
        BackendVolume again = linear.create(PVC1, ByteSize.ofMiB(5), Map.of());
        BackendVolume sameExtents = linear.create(PVC1, ByteSize.ofMiB(8), Map.of());

        assertThat(again).isEqualTo(first);
        assertThat(sameExtents).isEqualTo(first);
        // each repeat: lvcreate refuses the existing name, then one lvs reads the LV that is there
        assertThat(lvm.programs()).containsExactly("vgs", "lvcreate", "lvcreate", "lvs", "lvcreate", "lvs");
        assertThat(lvm.sizeOf("pvc-1")).isEqualTo(8 * ByteSize.MIB);
    }

    @Test
    void createOfAnExistingVolumeWithAnotherSizeIsAConflict() {
        thin.create(PVC1, ByteSize.ofMiB(64), Map.of());

        assertFails(() -> thin.create(PVC1, ByteSize.ofMiB(128), Map.of()), Kind.CONFLICT, "already exists with 64MiB");
        assertThat(lvm.sizeOf("pvc-1")).isEqualTo(64 * ByteSize.MIB);
    }

    @Test
    void anLvWithoutOurTagIsNeverAdopted() {
        lvm.addForeign("pvc-1", 8 * ByteSize.MIB, "");

        assertFails(() -> linear.create(PVC1, ByteSize.ofMiB(8), Map.of()), Kind.CONFLICT, "not a volume of backend fast (no tag pillar-csi");
        assertThat(linear.find(PVC1)).isEmpty();
        assertFails(() -> linear.expand(PVC1, ByteSize.ofMiB(16)), Kind.NOT_FOUND, "pvc-1");
        assertFails(() -> linear.delete(PVC1), Kind.FAILED, "refusing to remove vg0/pvc-1");
        assertThat(lvm.exists("pvc-1")).isTrue();
        assertThat(lvm.sizeOf("pvc-1")).isEqualTo(8 * ByteSize.MIB);
        assertThat(lvm.programs()).containsOnly("vgs", "lvcreate", "lvs"); // the lvcreate refused the existing name
    }

    @Test
    void twoInstallationsSharingAGroupNeverAdoptGrowOrDeleteEachOthersVolumes() {
        LvmBackend other = LvmBackend.of(new BackendConfig("fast", BackendKind.BACKEND_KIND_LVM_LINEAR, "vg0", ""),
                lvm, dev, dev.resolveSibling("sys"), TIMEOUT, Duration.ofSeconds(2), InstallationId.of("staging.pillar"));
        other.create(PVC1, ByteSize.ofMiB(8), Map.of());
        assertThat(lvm.tags("pvc-1")).containsExactly("pillar-csi", "pillar-csi.installation:staging.pillar");

        assertFails(() -> linear.create(PVC1, ByteSize.ofMiB(8), Map.of()), Kind.CONFLICT,
                "not a volume of backend fast (tag pillar-csi, installation staging.pillar (this backend's: embedded), not thin)");
        assertThat(linear.find(PVC1)).isEmpty();
        assertThat(linear.list()).isEmpty();
        assertFails(() -> linear.expand(PVC1, ByteSize.ofMiB(16)), Kind.NOT_FOUND, "pvc-1");
        assertFails(() -> linear.delete(PVC1), Kind.FAILED, "refusing to remove vg0/pvc-1");
        assertThat(lvm.exists("pvc-1")).isTrue();
        assertThat(lvm.sizeOf("pvc-1")).isEqualTo(8 * ByteSize.MIB);
        // whose it is can still be read, for recovering a lost state identity
        assertThat(linear.owner(PVC1)).contains(InstallationId.of("staging.pillar"));
        assertThat(thin.owner(PVC1)).isEmpty(); // not where a thin backend keeps its volumes
        assertThat(other.find(PVC1)).isPresent();
    }

    @Test
    void anLvWithOnlyTheOldTagIsNobodysAndIsNeverAdopted() {
        lvm.addTagged("pvc-1", 8 * ByteSize.MIB, "", List.of("pillar-csi"));

        assertFails(() -> linear.create(PVC1, ByteSize.ofMiB(8), Map.of()), Kind.CONFLICT, "no installation tag");
        assertFails(() -> linear.delete(PVC1), Kind.FAILED, "refusing to remove vg0/pvc-1");
        assertThat(linear.owner(PVC1)).isEmpty();
        assertThat(lvm.exists("pvc-1")).isTrue();
    }

    @Test
    void linearAndThinBackendsSharingAGroupKeepToTheirOwnVolumes() {
        linear.create(PVC1, ByteSize.ofMiB(8), Map.of());
        thin.create(PVC2, ByteSize.ofMiB(8), Map.of());

        assertFails(() -> thin.create(PVC1, ByteSize.ofMiB(8), Map.of()), Kind.CONFLICT, "not thin");
        assertThat(thin.find(PVC1)).isEmpty();
        assertThat(linear.find(PVC2)).isEmpty();
        assertFails(() -> linear.delete(PVC2), Kind.FAILED, "thin pool pool0");
        assertThat(linear.list()).extracting(BackendVolume::id).containsExactly(PVC1);
        assertThat(thin.list()).extracting(BackendVolume::id).containsExactly(PVC2);
    }

    @Test
    void listShowsOnlyTaggedVolumesNeverThePoolOrForeignLvs() {
        linear.create(PVC1, ByteSize.ofMiB(8), Map.of());
        lvm.addForeign("data", 8 * ByteSize.MIB, "");
        lvm.addForeign("thin-data", 8 * ByteSize.MIB, "pool0");
        lvm.addTagged("Not_A_Volume_Id", 4 * ByteSize.MIB, "");

        assertThat(linear.list()).containsExactly(new BackendVolume(PVC1, ByteSize.ofMiB(8), lvm.node("pvc-1")));
        assertThat(thin.list()).isEmpty();
    }

    @Test
    void lvcreateJudgesTheSpaceAndARefusalBeyondTheWholeGroupIsOutOfRange() {
        assertFails(() -> linear.create(PVC1, ByteSize.ofMiB(800), Map.of()), Kind.NO_SPACE, "has insufficient free space");
        assertFails(() -> linear.create(PVC1, ByteSize.ofGiB(2), Map.of()), Kind.OUT_OF_RANGE, "larger than volume group vg0");
        assertThat(lvm.exists("pvc-1")).isFalse();
        assertThat(linear.create(PVC1, ByteSize.ofMiB(768), Map.of()).size()).isEqualTo(ByteSize.ofMiB(768));
    }

    @Test
    void expandGrowsAndASizeItAlreadyHasIsANoOp() {
        linear.create(PVC1, ByteSize.ofMiB(8), Map.of());

        int before = lvm.argvs().size();
        ByteSize grown = linear.expand(PVC1, ByteSize.ofMiB(13));
        assertThat(grown).isEqualTo(ByteSize.ofMiB(16));
        assertThat(lvm.sizeOf("pvc-1")).isEqualTo(16 * ByteSize.MIB);
        // one lvs (ownership, size, extent size), one lvextend, nothing read back
        assertThat(lvm.argvs().subList(before, lvm.argvs().size()))
                .containsExactly(lvs("vg0/pvc-1"), List.of("lvextend", "-L", "16777216b", "vg0/pvc-1"));

        assertThat(linear.expand(PVC1, ByteSize.ofMiB(16))).isEqualTo(grown);
        assertThat(linear.expand(PVC1, ByteSize.ofMiB(15))).isEqualTo(grown); // rounds up to the same 4 extents
        assertThat(lvm.programs()).filteredOn("lvextend"::equals).hasSize(1);
    }

    @Test
    void shrinkIsRefusedBeforeAnyLvextend() {
        thin.create(PVC1, ByteSize.ofMiB(64), Map.of());

        assertFails(() -> thin.expand(PVC1, ByteSize.ofMiB(32)), Kind.OUT_OF_RANGE, "never shrink");
        assertThat(lvm.programs()).doesNotContain("lvextend");
        assertThat(lvm.sizeOf("pvc-1")).isEqualTo(64 * ByteSize.MIB);
    }

    @Test
    void expandOfAMissingVolumeIsNotFound() {
        assertFails(() -> linear.expand(PVC1, ByteSize.ofMiB(8)), Kind.NOT_FOUND, "does not exist in volume group vg0");
    }

    @Test
    void expandPastTheFreeSpaceIsNoSpace() {
        linear.create(PVC1, ByteSize.ofMiB(8), Map.of());

        assertFails(() -> linear.expand(PVC1, ByteSize.ofMiB(900)), Kind.NO_SPACE, "Insufficient free space");
        assertThat(lvm.sizeOf("pvc-1")).isEqualTo(8 * ByteSize.MIB);
    }

    @Test
    void deleteRemovesTheVolumeAndDeletingAMissingOneSucceeds() {
        linear.create(PVC1, ByteSize.ofMiB(8), Map.of());

        linear.delete(PVC1);
        assertThat(lvm.exists("pvc-1")).isFalse();
        assertThat(lvm.node("pvc-1")).doesNotExist();
        assertThat(lvm.argvs()).contains(List.of("lvremove", "-f", "vg0/pvc-1"));

        int before = lvm.argvs().size();
        linear.delete(PVC1);
        assertThat(lvm.argvs().subList(before, lvm.argvs().size())).containsExactly(lvs("vg0/pvc-1"));
    }

    @Test
    void deleteOfAVolumeThatStaysInUseSaysToUnexportFirstAfterTryingForTheDeviceTimeout() {
        LvmBackend impatient = LvmBackend.of(new BackendConfig("thin", BackendKind.BACKEND_KIND_LVM_THIN, "vg0",
                "pool0"), lvm, dev, dev.resolveSibling("sys"), TIMEOUT, Duration.ofMillis(500));
        impatient.create(PVC1, ByteSize.ofMiB(8), Map.of());
        lvm.markBusy("pvc-1");

        assertFails(() -> impatient.delete(PVC1), Kind.FAILED, "unexport it first");
        assertThat(lvm.exists("pvc-1")).isTrue();
        assertThat(lvm.argvs().stream().filter(a -> a.getFirst().equals("lvremove")).count()).as("lvremove tried again while in use")
                .isGreaterThan(1);
    }

    @Test
    void deleteOfAVolumeHeldForAMomentAfterItsUnexportSucceeds() {
        thin.create(PVC1, ByteSize.ofMiB(8), Map.of());
        lvm.markBusy("pvc-1", 2);

        thin.delete(PVC1);
        assertThat(lvm.exists("pvc-1")).isFalse();
        assertThat(lvm.argvs().stream().filter(a -> a.getFirst().equals("lvremove")).count()).isEqualTo(3);
    }

    @Test
    void findActivatesAnInactiveVolumeSoItsDeviceExists() {
        thin.create(PVC1, ByteSize.ofMiB(8), Map.of());
        lvm.deactivate("pvc-1");
        assertThat(lvm.node("pvc-1")).doesNotExist();

        assertThat(thin.find(PVC1)).contains(new BackendVolume(PVC1, ByteSize.ofMiB(8), lvm.node("pvc-1")));
        assertThat(lvm.node("pvc-1")).exists();
        assertThat(lvm.argvs()).contains(List.of("lvchange", "-ay", "-K", "vg0/pvc-1"));
        assertThat(thin.find(PVC2)).isEmpty();
    }

    @Test
    void capacityOfALinearBackendIsTheGroup() {
        linear.create(PVC1, ByteSize.ofMiB(100), Map.of());

        assertThat(linear.capacity()).isEqualTo(new Capacity(ByteSize.ofGiB(1), ByteSize.ofMiB(1024 - 256 - 100)));
    }

    @Test
    void capacityOfAThinBackendIsThePoolsUnusedDataWhileTheRatioLeavesMore() {
        LvmBackend thin = backend(thinWithRatio("8")); // 2 GiB of thin volumes, 1 GiB left after this one
        thin.create(PVC1, ByteSize.ofGiB(1), Map.of());
        lvm.writeToThinPool("pool0", 64 * ByteSize.MIB);

        assertThat(thin.capacity()).isEqualTo(new Capacity(ByteSize.ofMiB(256), ByteSize.ofMiB(192)));
        // one lvs of the group: the pool's size and usage, and the thin LVs' sizes
        assertThat(lvm.argvs()).contains(List.of("lvs", "--reportformat", "json", "--units", "b", "--nosuffix", "-o",
                "lv_name,lv_size,pool_lv,data_percent,lv_attr,zero", "vg0"));
    }

    @Test
    void aMissingVolumeGroupIsUnavailable() {
        LvmBackend gone = backend(new BackendConfig("gone", BackendKind.BACKEND_KIND_LVM_LINEAR, "vg9", ""));

        assertFails(() -> gone.create(PVC1, ByteSize.ofMiB(8), Map.of()), Kind.UNAVAILABLE, "Volume group \"vg9\" not found");
        assertFails(() -> gone.find(PVC1), Kind.UNAVAILABLE, "volume group vg9");
        assertFails(() -> gone.delete(PVC1), Kind.UNAVAILABLE, "volume group vg9");
        assertFails(gone::list, Kind.UNAVAILABLE, "volume group vg9");
        assertFails(gone::capacity, Kind.UNAVAILABLE, "volume group vg9");
    }

    @Test
    void aMissingThinPoolIsUnavailable() {
        LvmBackend noPool = backend(new BackendConfig("nopool", BackendKind.BACKEND_KIND_LVM_THIN, "vg0", "pool9"));

        // one lvs of the group (the pool's zeroing and its over-provisioning) finds no such pool
        assertFails(() -> noPool.create(PVC1, ByteSize.ofMiB(8), Map.of()), Kind.UNAVAILABLE, "thin pool vg0/pool9 is not available");
        assertFails(() -> noPool.create(PVC1, ByteSize.ofMiB(8), Map.of(), VolumeBackend.NonZeroingPool.ACCEPT), Kind.UNAVAILABLE,
                "thin pool vg0/pool9 is not available: volume group vg0 has no LV named pool9");
        assertFails(noPool::capacity, Kind.UNAVAILABLE, "thin pool vg0/pool9");
        assertThat(lvm.exists("pvc-1")).isFalse();
    }

    @ParameterizedTest
    @ValueSource(strings = { "--type", "-L", "stripes", "tag", "", "type=raid1", "zero\u0000" })
    void everyOptionIsRefusedBeforeAnyCommand(String key) {
        assertFails(() -> linear.create(PVC1, ByteSize.ofMiB(8), Map.of(key, "x")), Kind.INVALID, "take no volume options");
        assertFails(() -> thin.create(PVC1, ByteSize.ofMiB(8), Map.of(key, "-y")), Kind.INVALID, "take no volume options");
        assertThat(lvm.argvs()).isEmpty();
    }

    @Test
    void aNullOptionKeyIsRefusedToo() {
        Map<String, String> options = new HashMap<>();
        options.put(null, "x");
        assertFails(() -> linear.create(PVC1, ByteSize.ofMiB(8), options), Kind.INVALID, "[null]");
        assertThat(lvm.argvs()).isEmpty();
    }

    @ParameterizedTest
    @ValueSource(strings = { "snapshot", "snapshot-1", "pvmove0" })
    void namesLvmReservesAreRefusedBeforeAnyCommand(String name) {
        assertFails(() -> linear.create(VolumeId.of(name), ByteSize.ofMiB(8), Map.of()), Kind.INVALID, "LVM reserves");
        assertThat(lvm.argvs()).isEmpty();
    }

    @Test
    void aSizeOfZeroIsRefusedBeforeAnyCommand() {
        assertFails(() -> thin.create(PVC1, ByteSize.of(0), Map.of()), Kind.OUT_OF_RANGE, "above 0 bytes");
        assertThat(lvm.argvs()).isEmpty();
    }

    @Test
    void aSizeNearLongMaxIsOutOfRangeNotAnOverflow() {
        assertFails(() -> thin.create(PVC1, ByteSize.of(Long.MAX_VALUE - 1), Map.of()), Kind.OUT_OF_RANGE, "cannot be rounded up");
        assertThat(lvm.programs()).doesNotContain("lvcreate");
    }

    @Test
    void everyArgumentIsOursOrValidated() {
        linear.create(PVC1, ByteSize.ofMiB(8), Map.of());
        thin.create(PVC2, ByteSize.ofMiB(8), Map.of());
        linear.expand(PVC1, ByteSize.ofMiB(12));
        thin.delete(PVC2);
        linear.list();
        thin.capacity();

        // no argument that came from outside (names, sizes) can read as an option
        List<String> outside = List.of("pvc-1", "pvc-2", "vg0/pvc-1", "vg0/pvc-2", "8388608b", "12582912b");
        assertThat(lvm.argvs()).flatMap(argv -> argv).filteredOn(outside::contains).allMatch(arg -> !arg.startsWith("-"));
    }

    private static List<String> vgs() {
        return List.of("vgs", "--reportformat", "json", "--units", "b", "--nosuffix", "-o", "vg_name,vg_size,vg_free,vg_extent_size", "vg0");
    }

    private static List<String> lvs(String target) {
        return List.of("lvs", "--reportformat", "json", "--units", "b", "--nosuffix", "-o",
                "lv_name,lv_path,lv_size,lv_tags,pool_lv,lv_attr,vg_extent_size", target);
    }
}
